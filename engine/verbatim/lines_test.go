package verbatim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// lineByLine reads every line of text, the plain way the marker search
// stands in for: the start offset and kind of each line that holds marker
// text, and whether it is a marker line (+1, -1) or not (0).
func lineByLine(m Markers, text string) (found []string) {
	for off, n := 0, 1; off < len(text); n++ {
		next := len(text)
		if nl := strings.IndexByte(text[off:], '\n'); nl >= 0 {
			next = off + nl + 1
		}
		line := strings.TrimSuffix(text[off:next], "\n")
		if strings.Contains(line, m.Start) || strings.Contains(line, m.End) {
			found = append(found, fmt.Sprintf("line %d at %d..%d kind %d", n, off, next, m.lineKind(line)))
		}
		off = next
	}
	return found
}

func bySearch(m Markers, text string) (found []string) {
	for l := range m.markerLines(text) {
		found = append(found, fmt.Sprintf("line %d at %d..%d kind %d", lineNumber(text, l.at), l.at, l.next, l.kind))
	}
	return found
}

// TestMarkerSearchFindsEveryLine: the search visits exactly the lines a
// line-by-line reading finds holding marker text, including markers that
// overlap or stand twice on a line.
func TestMarkerSearchFindsEveryLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range []Markers{markers, {Start: "<<<", End: "<<<<"}, {Start: "==", End: "="}} {
		for range 5000 {
			text := randomLines(rng, m)
			if got, want := bySearch(m, text), lineByLine(m, text); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q with %q:\nsearch:       %v\nline by line: %v", text, m, got, want)
			}
		}
	}
}

func FuzzMarkerSearch(f *testing.F) {
	f.Add("<<<\nx <<< y\n<<<<\n>>>\n", "<<<", ">>>")
	f.Add(markers.Start+"\r\n"+markers.End, markers.Start, markers.End)
	f.Fuzz(func(t *testing.T, text, start, end string) {
		if start == "" || end == "" || strings.Contains(start, "\n") || strings.Contains(end, "\n") {
			return
		}
		m := Markers{Start: start, End: end}
		if got, want := bySearch(m, text), lineByLine(m, text); !reflect.DeepEqual(got, want) {
			t.Fatalf("search: %v\nline by line: %v", got, want)
		}
	})
}

func randomLines(rng *rand.Rand, m Markers) string {
	parts := []string{m.Start, m.End, "\r", "text", " ", m.Start + m.End, m.End + m.Start}
	var b strings.Builder
	for range rng.IntN(20) {
		b.WriteString(parts[rng.IntN(len(parts))])
		if rng.IntN(3) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
