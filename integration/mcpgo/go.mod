// A module of its own so that mcp-go, used only to test that its clients
// connect, stays out of fsmcp's dependency list.
module github.com/fsmcp/fsmcp/integration/mcpgo

go 1.26.5

require golang.org/x/tools v0.42.0 // indirect

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mark3labs/mcp-go v1.2.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.34.0 // indirect
)
