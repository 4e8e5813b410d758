package problem

import (
	"slices"
	"testing"
)

// TestComparePositions holds that positions sort by file, then by line and
// column as numbers, and a file without a line before its lines.
func TestComparePositions(t *testing.T) {
	want := []string{
		"a.json",
		"a.json:4",
		"a.json:4:5",
		"a.json:4:29",
		"a.json:9:1",
		"a.json:10:1",
		"b.json:1:1",
		"c:/x.json:2:1", // a colon in the file name
		"c:/x.json:10:1",
	}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortStableFunc(got, ComparePositions)
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q\nwant   %q", got, want)
	}
	if c := ComparePositions("a.json:4:5", "a.json:4:5"); c != 0 {
		t.Errorf("a position compares %d with itself", c)
	}
}
