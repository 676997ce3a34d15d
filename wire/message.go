package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A bad line is answered by the front with one of these codes.
const (
	codeParse   = jsonrpc.CodeParseError     // not JSON
	codeInvalid = jsonrpc.CodeInvalidRequest // JSON, but not a JSON-RPC message, or too large
)

// wireError is a JSON-RPC error answer written by the front itself. The
// SDK's encoder drops a null id, which JSON-RPC requires on such answers.
type wireError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

// errorAnswer encodes an error answer to the message with the given raw id
// (nil: null).
func errorAnswer(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(wireError{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: msg}})
	return data
}

// decode reads one line as a JSON-RPC message, or returns the answer the
// client gets instead.
func decode(line []byte) (jsonrpc.Message, []byte) {
	if !json.Valid(line) {
		return nil, errorAnswer(nil, codeParse, "parse error: the line is not JSON")
	}
	if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
		return nil, errorAnswer(nil, codeInvalid, "invalid request: batches are not supported (MCP 2025-06-18 removed them); send one message per line")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorAnswer(idOf(line), codeInvalid, fmt.Sprintf("invalid request: not a JSON-RPC 2.0 message (%v)", err))
	}
	return msg, nil
}

// idOf finds the id of a message, if it is a string or number among the
// top-level keys that can be read (line may be only the head of a message).
func idOf(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil
		}
		if key == "id" {
			switch val[0] {
			case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				return val
			}
			return nil
		}
	}
	return nil
}

// ReadBody reads a Streamable HTTP POST body as the go-sdk's transport
// does (its readBatch): a JSON array is a batch, each element one message,
// anything else one message, each decoded by jsonrpc.DecodeMessage, the
// SDK's own decoder, which matches keys exactly ("METHOD" is not
// "method"; encoding/json would take either). Every check in front of the
// SDK that depends on what a request is (its method, its id) must read it
// through here, once, or it can be shown one request while the SDK serves
// another. err is set when the SDK would refuse the body.
func ReadBody(body []byte) (msgs []jsonrpc.Message, batch bool, err error) {
	if bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
		var raw []json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, true, err
		}
		if len(raw) == 0 {
			return nil, true, fmt.Errorf("empty batch")
		}
		for _, r := range raw {
			m, err := jsonrpc.DecodeMessage(r)
			if err != nil {
				return nil, true, err
			}
			msgs = append(msgs, m)
		}
		return msgs, true, nil
	}
	m, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, false, err
	}
	return []jsonrpc.Message{m}, false, nil
}
