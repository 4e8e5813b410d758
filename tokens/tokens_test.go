package tokens

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	c, err := New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]int{
		"":                        0,
		"hello world":             2,
		"<|endoftext|>":           7, // ordinary text, never a special token
		"# Delegation Overview\n": 5, // "#", " Deleg", "ation", " Overview", "\n"
	}
	for text, want := range cases {
		if got := c.CountTokens(text); got != want {
			t.Errorf("%q: %d tokens, want %d", text, got, want)
		}
	}
	if _, err := New("gpt2"); err == nil || !strings.Contains(err.Error(), "o200k_base") {
		t.Errorf("unknown encoding: %v", err)
	}
}
