# syntax=docker/dockerfile:1
# fsmcp as a Streamable HTTP server for a mounted /workspace, with rg, bash
# and git on PATH (SPEC §8). Build: make image (podman: --format docker,
# or the HEALTHCHECK is lost). Run: see README "Install".
# packaging/rootfs.sh builds the same filesystem from Debian packages without
# an engine; keep the two in step.

ARG GO_VERSION=1.26
ARG DEBIAN=trixie

# The compiler runs on the builder's platform and cross-compiles, so a
# multi-platform build (buildx --platform linux/amd64,linux/arm64) needs no
# emulation.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-${DEBIAN} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev TARGETOS TARGETARCH
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/fsmcp .

FROM debian:${DEBIAN}-slim
# ripgrep serves fs_grep/fs_glob; bash and git are what fs_bash users reach
# for; tini reaps what fs_bash commands leave behind (fsmcp is not an init).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ripgrep bash git ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --uid 10001 --user-group --create-home --shell /bin/bash fsmcp \
 && install -d -o fsmcp -g fsmcp /workspace
COPY --from=build /out/fsmcp /usr/local/bin/fsmcp
COPY packaging/healthz /usr/local/bin/fsmcp-healthz

USER 10001:10001
WORKDIR /workspace
EXPOSE 8080
# The bearer token comes at run time, never from the image:
#   docker run -e FSMCP_AUTH_TOKEN=... (fsmcp reads it as --auth-token).
LABEL org.opencontainers.image.title="fsmcp" \
      org.opencontainers.image.description="A developer's files served to AI agents over MCP (Streamable HTTP on :8080/mcp)" \
      org.opencontainers.image.source="https://github.com/fsmcp/fsmcp" \
      io.modelcontextprotocol.server.name="io.github.fsmcp/fsmcp"

# bash's /dev/tcp (packaging/healthz) instead of curl: bash is in the image
# anyway, curl would add a dozen libraries for one probe. /healthz needs no
# token.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["fsmcp-healthz", "8080"]

ENTRYPOINT ["tini", "--", "fsmcp"]
CMD ["--transport", "http", "--listen", "0.0.0.0:8080", "/workspace"]
