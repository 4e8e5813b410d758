package tokens

import (
	"strings"
	"testing"
)

// BenchmarkCount counts the o200k tokens of a megabyte of the tiktoken
// comparison's texts (the golden prompts and random text with long runs)
// and of the worst cases for a scanner and a merge: one word, a run of
// spaces, a run of digits, mixed scripts. bench/ measures the same beside
// tiktoken.
func BenchmarkCount(b *testing.B) {
	c, err := New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	var prompts strings.Builder
	for prompts.Len() < 1<<20 {
		for _, text := range texts(b) {
			prompts.WriteString(text)
		}
	}
	cases := map[string]string{
		"prompts": prompts.String(),
		"word":    strings.Repeat("a", 1<<20),
		"spaces":  strings.Repeat(" ", 1<<20),
		"digits":  strings.Repeat("7", 1<<20),
		"mixed":   strings.Repeat("Über 日本語 текст 42 — ok! ", 1<<20/40),
	}
	for _, name := range []string{"prompts", "word", "spaces", "digits", "mixed"} {
		text := cases[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				c.CountTokens(text)
			}
		})
	}
}
