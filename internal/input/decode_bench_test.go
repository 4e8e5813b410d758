package input

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func benchDoc() []byte {
	var b strings.Builder
	b.WriteString(`{"prompt": "`)
	for b.Len() < 5000 {
		b.WriteString(`## Policy\n\nAlways run the tests before committing.\n\n`)
	}
	b.WriteString(`", "tools": [`)
	for i := 0; i < 8; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "tool%d", "id": "tool.%d", "success": "exit code 0", "cost": "low"}`, i, i)
	}
	b.WriteString(`], "list": ["a", "b", "c"], "n": 12, "ok": true}`)
	return []byte(b.String())
}

// BenchmarkDecode compares the engine's order-keeping decoder with
// encoding/json's Unmarshal into maps, which loses key order.
func BenchmarkDecode(b *testing.B) {
	data := benchDoc()
	b.Run("engine", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			d, err := Decode(Input{Name: "b", Data: data}, nil)
			if err != nil {
				b.Fatal(err)
			}
			d.Release()
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
