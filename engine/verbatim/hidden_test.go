package verbatim

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestHiddenMarker: marker text with invisible characters in it is found
// at its line and offset, with the character that hides it, after text of
// many scripts; the markers themselves, and invisible characters around
// them or elsewhere, are not.
func TestHiddenMarker(t *testing.T) {
	m := Markers{"<!-- PARENT PROMPT START -->", "<!-- PARENT PROMPT END -->"}
	head := strings.Repeat("Grüße, 世界 \u200d\n", 100)
	for _, c := range []struct {
		s    string
		at   int
		line int
		r    rune
	}{
		{head + "<!-- PARENT PROMPT\u200b START -->\n", len(head), 101, 0x200B},
		{head + "x <!-- PARENT PROMPT END \u202e-->", len(head) + 2, 101, 0x202E},
		{m.Start + "\n" + m.End + "\n<!-- PARENT PROMPT\u3000END -->", 2*len(m.Start)/2 + len(m.End) + 2, 3, 0x3000},
	} {
		h, ok := m.hiddenMarker(c.s)
		if !ok || h.At != c.at || h.Line != c.line || h.Rune != c.r {
			t.Errorf("%q: %+v %v, want at %d line %d %U", c.s[max(0, len(c.s)-60):], h, ok, c.at, c.line, c.r)
		}
	}
	for _, s := range []string{head, m.Start + "\n" + head + m.End, "\u200b" + m.Start + "\u200b", "<!-- PARENT PROMPT STAR\u200bT", strings.Repeat("\u200b", 1000)} {
		if h, ok := m.hiddenMarker(s); ok {
			t.Errorf("%.40q: %+v", s, h)
		}
	}
}

// BenchmarkHiddenMarker: the cost of looking for hidden markers in a
// parent prompt of 1 MiB, in ASCII (a scan) and in text of other scripts
// (a copy of it as read, and a search).
func BenchmarkHiddenMarker(b *testing.B) {
	m := Markers{"<!-- PARENT PROMPT START -->", "<!-- PARENT PROMPT END -->"}
	for name, line := range map[string]string{"ascii": "Review the open pull requests and report.\n", "mixed": "Grüße, 世界: review the pull requests \u200d.\n"} {
		s := m.Start + "\n" + strings.Repeat(line, (1<<20)/len(line)) + m.End + "\n"
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if _, ok := m.hiddenMarker(s); ok {
					b.Fatal("found a hidden marker")
				}
			}
		})
	}
}

// TestFirstBidiMatchesEachRune: FirstBidi, which decodes only where a
// bidi control's first byte stands, finds what decoding every character
// finds, among lookalikes that share those first bytes (an em dash, Arabic
// letters) and invalid bytes.
func TestFirstBidiMatchesEachRune(t *testing.T) {
	each := func(s string) (rune, int, bool) {
		for i, r := range s {
			if isBidi(r) {
				return r, i, true
			}
		}
		return 0, 0, false
	}
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", " ", "\n", "—", "…", "ب", "\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u2065", "\xe2", "\xd8", "\xe2\x80", "日"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		r, at, ok := FirstBidi(s)
		wr, wat, wok := each(s)
		if r != wr || at != wat || ok != wok {
			t.Fatalf("FirstBidi(%q) = %U %d %t, each rune: %U %d %t", s, r, at, ok, wr, wat, wok)
		}
	}
}

// BenchmarkFirstBidi scans a megabyte of prose with an em dash (whose
// first byte is a bidi control's) every line, for a control it lacks.
func BenchmarkFirstBidi(b *testing.B) {
	s := strings.Repeat("Review the open pull requests — and report.\n", (1<<20)/46)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, _, ok := FirstBidi(s); ok {
			b.Fatal("found a bidi control")
		}
	}
}
