package journal

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// The hand-written encoding of the hot records is json.Marshal's, byte
// for byte: every field of Image, Op and Final is filled (or left zero)
// at random, strings include what encoding/json escapes, and a field
// added to those types without an encoding here fails the test.
func TestRecordEncodingIsJSONMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "a", "dir/file.go", "x<y>&z", "new\nline", "quote\"back\\slash", "ünï", "bad\xffutf8", "\u2028", "tab\t"}
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		if rng.IntN(3) == 0 {
			return // left zero
		}
		switch v.Kind() {
		case reflect.String:
			v.SetString(strs[rng.IntN(len(strs))])
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64, reflect.Int32:
			v.SetInt(rng.Int64N(1<<40) - 1<<39)
		case reflect.Uint, reflect.Uint64, reflect.Uint32:
			v.SetUint(rng.Uint64N(1 << 40))
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				b := make([]byte, rng.IntN(9))
				for i := range b {
					b[i] = byte(rng.IntN(256))
				}
				v.SetBytes(b)
			} else {
				n := rng.IntN(3)
				s := reflect.MakeSlice(v.Type(), n, n)
				for i := range n {
					fill(s.Index(i))
				}
				v.Set(s)
			}
		case reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i))
			}
		case reflect.Pointer:
			p := reflect.New(v.Type().Elem())
			fill(p.Elem())
			v.Set(p)
		case reflect.Map:
			m := reflect.MakeMap(v.Type())
			for range rng.IntN(3) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fill(k)
				fill(e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return // set below
			}
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		default:
			t.Fatalf("a field of kind %s: teach the test and encode.go", v.Kind())
		}
	}
	for i := range 5000 {
		var r record
		switch i % 3 {
		case 0:
			var op Op
			fill(reflect.ValueOf(&op).Elem())
			r = record{T: "o", ID: strs[i%len(strs)], Op: &op}
		case 1:
			var after []Final
			fill(reflect.ValueOf(&after).Elem())
			r = record{T: "a", ID: "7", After: after}
		default: // the other records, and the hot ones with a stray field
			fill(reflect.ValueOf(&r).Elem())
			r.Time = time.Time{}
			if rng.IntN(2) == 0 {
				r.Time = time.Unix(rng.Int64N(1<<31), 0).UTC()
			}
		}
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalRecord(nil, &r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func BenchmarkRecordEncoding(b *testing.B) {
	fl := uint32(0)
	r := &record{T: "a", ID: "42", After: []Final{{Path: "w1/f1234", Image: Image{Type: File, Mode: 0o644, Owner: &[2]int{1000, 1000}, MTime: 1764211111123456789, ATime: 1764211111123456789, Size: 5, Dev: 2049, Ino: 123456, Nlink: 1, XattrsKept: true, Flags: &fl}}}}
	b.Run("hand", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = marshalRecord(buf[:0], r)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(r)
		}
	})
}
