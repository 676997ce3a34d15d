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
