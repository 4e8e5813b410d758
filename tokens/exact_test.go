package tokens

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktokenCounts counts with tiktoken-go itself, the reference: the counts
// of this package must be its counts exactly.
func tiktokenCounts(t *testing.T, encoding string) func(string) int {
	t.Helper()
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		t.Fatal(err)
	}
	return func(s string) int { return len(enc.EncodeOrdinary(s)) }
}

// texts are what the comparison runs on: every golden prompt, and random
// text drawn from an alphabet of letters of several scripts, digits,
// punctuation, white space, combining marks, apostrophes and invalid bytes,
// in runs of every length.
func texts(t testing.TB) []string {
	var out []string
	root := filepath.Join("..", "testdata", "golden")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out = append(out, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	alphabet := []string{"a", "e", "th", "Z", "Q", "é", "ß", "Ж", "日本", "ا", "\u0301", "0", "7", "42", "'s", "'LL", "'",
		" ", "  ", "\t", "\n", "\r\n", "\n\n", ".", ",", "!", "?", "//", "#", "*", "`", "{{", "—", "🎉", "\xff", "\xe2\x82", "<|endoftext|>"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		for range rng.IntN(60) {
			tok := alphabet[rng.IntN(len(alphabet))]
			b.WriteString(strings.Repeat(tok, 1+rng.IntN(1+rng.IntN(40))))
		}
		out = append(out, b.String())
	}
	return append(out, "", "x", strings.Repeat("a", 3000), strings.Repeat("ab", 1500), strings.Repeat("!", 2000),
		strings.Repeat(" ", 2000)+"x", strings.Repeat("7", 2000), strings.Repeat("日", 1000), strings.Repeat("Qz", 999))
}

// TestCountsAreTiktokens: every count equals tiktoken's, for every
// encoding, on prompts and on random text with long pieces.
func TestCountsAreTiktokens(t *testing.T) {
	t.Parallel()
	corpus := texts(t)
	for _, encoding := range Encodings() {
		t.Run(encoding, func(t *testing.T) {
			c, err := New(encoding)
			if err != nil {
				t.Fatal(err)
			}
			want := tiktokenCounts(t, encoding)
			for _, text := range corpus {
				if got, w := c.CountTokens(text), want(text); got != w {
					t.Fatalf("%d tokens, tiktoken counts %d, in %.200q", got, w, text)
				}
			}
		})
	}
}

// TestLongPieceIsNotQuadratic: a word of a million characters is one piece
// of the regular expression. Merged by rescanning the piece after every
// merge, as tiktoken-go does, it needs some 10^12 steps (a 200,000-character
// word took over a minute); the deadline is generous for n log n and far
// too short for that.
func TestLongPieceIsNotQuadratic(t *testing.T) {
	t.Parallel()
	c, err := New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, word := range []string{strings.Repeat("a", 1_000_000), strings.Repeat("xq", 500_000), strings.Repeat("!", 1_000_000)} {
		done := make(chan int, 1)
		go func() { done <- c.CountTokens(word) }()
		select {
		case n := <-done:
			if n <= 0 || n >= len(word) {
				t.Errorf("%.10q...: %d tokens", word, n)
			}
		case <-ctx.Done():
			t.Fatalf("counting a %d-character word did not end", len(word))
		}
	}
}

// TestMergeMatchesRescanning: the merge gives the parts the rescanning
// merge gives, on pieces made to have many equal ranks, short and long.
func TestMergeMatchesRescanning(t *testing.T) {
	t.Parallel()
	c, err := New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var mg merger
	for i := range 2300 {
		// The first 2,000 are merged with the heap, the rest, longer,
		// with the buckets of long pieces.
		size := 2 + rng.IntN(200)
		if i >= 2000 {
			size = longPiece + rng.IntN(1000)
		}
		var b strings.Builder
		for range size {
			b.WriteByte("aab ."[rng.IntN(5)])
		}
		piece := b.String()
		if _, ok := c.ranks.rank(piece); ok {
			continue
		}
		if got, want := mg.merge(piece, c.ranks), rescan(piece, c.ranks); got != want {
			t.Fatalf("%q: %d parts, rescanning gives %d", piece, got, want)
		}
	}
}

// rescan is the quadratic merge, as tiktoken-go writes it.
func rescan(piece string, ranks *ranks) int {
	starts := make([]int, len(piece)+1)
	for i := range starts {
		starts[i] = i
	}
	rankAt := func(i int) (int32, bool) {
		if i+2 >= len(starts) {
			return 0, false
		}
		return ranks.rank(piece[starts[i]:starts[i+2]])
	}
	for {
		best, at := int32(0), -1
		for i := 0; i+1 < len(starts); i++ {
			if r, ok := rankAt(i); ok && (at < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			return len(starts) - 1
		}
		starts = append(starts[:at+1], starts[at+2:]...)
	}
}
