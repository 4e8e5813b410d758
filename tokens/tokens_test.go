package tokens

import (
	"strings"
	"sync"
	"testing"
)

func TestCount(t *testing.T) {
	t.Parallel()
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

// TestConcurrentCounts counts from many goroutines at once, with no lock:
// under -race it shows the encoder is safe to share.
func TestConcurrentCounts(t *testing.T) {
	t.Parallel()
	c, err := New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("Always run the tests before committing. ", 50)
	want := c.CountTokens(text)
	var wg sync.WaitGroup
	counts := make([]int, 16)
	for i := range counts {
		wg.Go(func() { counts[i] = c.CountTokens(text) })
	}
	wg.Wait()
	for i, n := range counts {
		if n != want {
			t.Errorf("goroutine %d counted %d, want %d", i, n, want)
		}
	}
}
