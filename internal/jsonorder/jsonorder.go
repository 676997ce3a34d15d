// Package jsonorder encodes a JSON value decoded into maps (and maybe
// edited) with its objects' keys in the order of the text it came from:
// decoding into map[string]any and encoding again would sort them all.
package jsonorder

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Marshal encodes v, a value decoded from like into maps and slices (and
// edited since), with each object's keys in the order like has them at
// the same place; keys like lacks follow, sorted, as json.Marshal writes
// a map, and keys v lacks are left out. Values that are neither maps nor
// slices are written by json.Marshal.
func Marshal(v any, like json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeOrdered(&b, v, like); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encodeOrdered(b *bytes.Buffer, v any, like json.RawMessage) error {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		keys, subs := objectLayout(like)
		for k := range x {
			if _, ok := subs[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[len(subs):])
		b.WriteByte('{')
		n := 0
		for _, k := range keys {
			val, ok := x[k]
			if !ok {
				continue // edited out
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			name, err := json.Marshal(k)
			if err != nil {
				return err
			}
			b.Write(name)
			b.WriteByte(':')
			if err := encodeOrdered(b, val, subs[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		elems := arrayLayout(like)
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			var sub json.RawMessage
			if i < len(elems) {
				sub = elems[i]
			}
			if err := encodeOrdered(b, e, sub); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		data, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(data)
	}
	return nil
}

// objectLayout is like's keys in order, each once, and their values; none
// when like is not an object.
func objectLayout(like json.RawMessage) ([]string, map[string]json.RawMessage) {
	subs := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(like))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, subs
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys, subs
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return keys, subs
		}
		if _, dup := subs[k]; !dup {
			keys = append(keys, k)
		}
		subs[k] = raw // the last one wins, as when decoding into a map
	}
	return keys, subs
}

// arrayLayout is like's elements; none when like is not an array.
func arrayLayout(like json.RawMessage) []json.RawMessage {
	var elems []json.RawMessage
	if json.Unmarshal(like, &elems) != nil {
		return nil
	}
	return elems
}
