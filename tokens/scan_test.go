package tokens

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// oracle cuts text as the encoding's regular expression does, run by
// regexp2 as this package did before it had scanners: the pieces as
// "start:end" byte offsets.
type oracle struct {
	re *regexp2.Regexp
}

func newOracle(t testing.TB, encoding string) oracle {
	re, err := regexp2.Compile(pattern(encoding), regexp2.None)
	if err != nil {
		t.Fatal(err)
	}
	return oracle{re}
}

func (o oracle) pieces(text string) []string {
	var out []string
	m, _ := o.re.FindStringMatch(text)
	// The matches' offsets count runes (an invalid byte is one).
	at, atRune := 0, 0
	advance := func(to int) {
		for atRune < to {
			_, size := utf8.DecodeRuneInString(text[at:])
			at += size
			atRune++
		}
	}
	for m != nil {
		advance(m.Index)
		start := at
		advance(m.Index + m.Length)
		out = append(out, fmt.Sprintf("%d:%d", start, at))
		m, _ = o.re.FindNextMatch(m)
	}
	return out
}

func scanPieces(c *Counter, text string) []string {
	var out []string
	for i := 0; i < len(text); {
		end := c.scan(c.classes, text, i)
		if end <= i || end > len(text) {
			panic(fmt.Sprintf("the scanner returned %d at %d of %d", end, i, len(text)))
		}
		out = append(out, fmt.Sprintf("%d:%d", i, end))
		i = end
	}
	return out
}

// samePieces fails t where the scanner's pieces differ from the oracle's.
func samePieces(t *testing.T, encoding string, c *Counter, o oracle, text string) {
	t.Helper()
	got, want := scanPieces(c, text), o.pieces(text)
	if slices.Equal(got, want) {
		return
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			var s, e int
			fmt.Sscanf(want[i], "%d:%d", &s, &e)
			t.Fatalf("%s: piece %d is %s, the pattern's %s (%q) in %.300q", encoding, i, got[i], want[i], text[s:e], text)
		}
	}
	t.Fatalf("%s: %d pieces, the pattern's %d in %.300q", encoding, len(got), len(want), text)
}

type encodingUnderTest struct {
	name    string
	counter *Counter
	oracle  oracle
}

func allEncodings(t testing.TB) []encodingUnderTest {
	var out []encodingUnderTest
	for _, enc := range Encodings() {
		c, err := New(enc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, encodingUnderTest{enc, c, newOracle(t, enc)})
	}
	return out
}

// TestScanMatchesPattern: the scanners cut every golden prompt and the
// random texts of the tiktoken comparison as the patterns do.
func TestScanMatchesPattern(t *testing.T) {
	t.Parallel()
	corpus := append(texts(t), scanSeeds()...)
	for _, e := range allEncodings(t) {
		for _, text := range corpus {
			samePieces(t, e.name, e.counter, e.oracle, text)
		}
	}
}

// scanSeeds are texts at the edges of the patterns' alternatives: cases
// of contractions, letters of every case category next to marks, line
// breaks inside runs of white space, digits of other scripts, slashes
// after punctuation.
func scanSeeds() []string {
	return []string{
		"don't", "DON'T", "I'M", "we'Ll", "'re'", "x'", "'", "''s", " 's", "\n's",
		"HelloWorld", "ABCdef", "ǅungla", "ǅ", "Aʰb", "AʰB", "aʰ", "\u0301a", "\u0301", "a\u0301B", "A\u0301\u0301",
		"Ab\u0301C", "日本語テキスト", "ÀÉÎ", "ÀÉÎ's", "Straße", " Straße", "\tword", "\u00a0word",
		"  \n  \n \tx", " \r\n", "\n\n", "   ", "a   b", "a   ", "\u3000\u3000x", "\u2028\n x",
		"12345", " 123", "٣٤٥٦", "Ⅻ3", "x²³⁴", "!!\n/", "!!//\r\n/x", " !x", "  !", "(@\n\n",
		"\xff\xfe", "a\xffb", " \xff", "\xe2\x82x", "<|endoftext|>", "🎉🎉 ok", "a\u200db",
	}
}

// FuzzScanMatchesPattern holds the scanners to the patterns on arbitrary
// text, for all four encodings.
func FuzzScanMatchesPattern(f *testing.F) {
	for _, s := range scanSeeds() {
		f.Add(s)
	}
	f.Add(strings.Repeat("Ab ", 10) + "\n\n  x'S 42 !!/")
	encodings := allEncodings(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, e := range encodings {
			samePieces(t, e.name, e.counter, e.oracle, text)
		}
	})
}
