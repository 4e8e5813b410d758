package bench

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/tokens"
)

// tokenCorpus is a mebibyte of prompt text: the golden prompts and the
// READMEs of the repository, repeated, cut at a character's start.
func tokenCorpus(tb testing.TB) string {
	tb.Helper()
	var parts []string
	err := filepath.WalkDir("../testdata/golden", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		parts = append(parts, string(b))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, name := range []string{"../README.md", "testdata/README.md"} {
		parts = append(parts, string(readFile(tb, name)))
	}
	var b strings.Builder
	for b.Len() < 1<<20 {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	s := b.String()[:1<<20]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// o200k is the counter of o200k_base, the encoding the benchmarks count
// tokens in.
func o200k(tb testing.TB) *tokens.Counter {
	tb.Helper()
	tc, err := tokens.New("o200k_base")
	if err != nil {
		tb.Fatal(err)
	}
	return tc
}

// tiktokenPeer is tiktoken's core compiled to WebAssembly (npm tiktoken),
// run by node (testdata/tiktoken-peer.cjs) on one text: each count is one
// line to it and one back, a round trip of some microseconds next to the
// milliseconds of counting a mebibyte.
type tiktokenPeer struct {
	in  io.Writer
	out *bufio.Reader
}

// newTiktokenPeer starts the peer; without node or the tiktoken package
// (.ci/run installs it, PROMPTSMITH_TIKTOKEN_MODULES names its node_modules
// folder) it skips, but fails under CI=true.
func newTiktokenPeer(tb testing.TB, encoding, text string) *tiktokenPeer {
	tb.Helper()
	modules := os.Getenv("PROMPTSMITH_TIKTOKEN_MODULES")
	if modules == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			tb.Fatal(err)
		}
		modules = filepath.Join(cache, "promptsmith-tiktoken", "node_modules")
	}
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(modules, "tiktoken")); err != nil || serr != nil {
		fixture.Missing(tb, "the tiktoken peer needs node and npm's tiktoken in "+modules)
	}
	file := filepath.Join(tb.TempDir(), "text")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	script, err := filepath.Abs("testdata/tiktoken-peer.cjs")
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(node, script, encoding, file)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	p := &tiktokenPeer{in: stdin, out: bufio.NewReader(stdout)}
	if line, err := p.out.ReadString('\n'); err != nil || line != "ready\n" {
		tb.Fatalf("the tiktoken peer did not start: %q %v", line, err)
	}
	// One count before any is timed: node compiles WebAssembly lazily, and
	// optimizes it once it has run.
	if _, err := p.count(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// count has the peer count the text's tokens once.
func (p *tiktokenPeer) count() (int, error) {
	if _, err := io.WriteString(p.in, "count\n"); err != nil {
		return 0, err
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("the tiktoken peer: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(line))
}

// TestTokensMatchTiktoken: promptsmith's counts of the corpus are
// tiktoken's, in every encoding.
func TestTokensMatchTiktoken(t *testing.T) {
	text := tokenCorpus(t)
	for _, enc := range tokens.Encodings() {
		peer := newTiktokenPeer(t, enc, text)
		tc, err := tokens.New(enc)
		if err != nil {
			t.Fatal(err)
		}
		want, err := peer.count()
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.CountTokens(text); got != want {
			t.Errorf("%s: %d tokens, tiktoken counts %d", enc, got, want)
		}
	}
}

// BenchmarkTokens counts the o200k tokens of the corpus with promptsmith
// and with tiktoken's core compiled to WebAssembly, alone and paired (the
// time of promptsmith's count over tiktoken's, x-tiktoken); the counts are
// reported as a metric, to be read side by side. The worst cases are one
// word (a run of one letter) and a run of spaces, each one piece to merge,
// of 16 KiB (with tiktoken's time, which is quadratic in a piece's length)
// up to 4 MiB, a mebibyte of digits and of text in mixed scripts: a steady
// MB/s is a linear cost.
func BenchmarkTokens(b *testing.B) {
	text := tokenCorpus(b)
	tc := o200k(b)
	promptsmith := func() error { tc.CountTokens(text); return nil }
	b.Run("promptsmith", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n = tc.CountTokens(text)
		}
		b.ReportMetric(float64(n), "tokens")
	})
	b.Run("tiktoken-wasm", func(b *testing.B) {
		peer := newTiktokenPeer(b, "o200k_base", text)
		b.SetBytes(int64(len(text)))
		n := 0
		runOps(b, func() (err error) { n, err = peer.count(); return err })
		b.ReportMetric(float64(n), "tokens")
	})
	b.Run("paired", func(b *testing.B) {
		peer := newTiktokenPeer(b, "o200k_base", text)
		paired(b, promptsmith, base{"x-tiktoken", func() error { _, err := peer.count(); return err }})
	})
	mixed := strings.Repeat("Über 日本語 текст 42 — ok! Ελληνικά, العربية; ", 1<<20/64)
	for _, w := range []struct {
		name, text string
		peer       bool // tiktoken counts it too, in seconds at most
	}{
		{"word=16KiB", strings.Repeat("a", 1<<14), true},
		{"word=256KiB", strings.Repeat("a", 1<<18), false},
		{"word=1MiB", strings.Repeat("a", 1<<20), false},
		{"word=4MiB", strings.Repeat("a", 1<<22), false},
		{"spaces=16KiB", strings.Repeat(" ", 1<<14), true},
		{"spaces=1MiB", strings.Repeat(" ", 1<<20), false},
		{"digits=1MiB", strings.Repeat("7", 1<<20), false},
		{"mixed=1MiB", mixed, false},
	} {
		b.Run("worst/"+w.name, func(b *testing.B) {
			b.SetBytes(int64(len(w.text)))
			b.ReportAllocs()
			for b.Loop() {
				tc.CountTokens(w.text)
			}
		})
		if !w.peer {
			continue
		}
		b.Run("worst/"+w.name+"/tiktoken-wasm", func(b *testing.B) {
			peer := newTiktokenPeer(b, "o200k_base", w.text)
			b.SetBytes(int64(len(w.text)))
			runOps(b, func() error { _, err := peer.count(); return err })
		})
	}
}
