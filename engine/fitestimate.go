package engine

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/engine/internal/budget"
	"github.com/promptsmith/promptsmith/internal/manifest"
)

// estimateSavings is what the first k cuts of a plan are expected to save,
// in tokens, for every k from 0 to the plan's total: read off the uncut
// prompt, each unit's part of it counted once, so that a fit can guess
// its cut instead of searching for it render by render. A section's part
// is its span; a list item's is where the prompt shows it, from its
// longest text to the next item shown (an item the prompt does not show
// saves nothing); a text's cut saves its share of the text's tokens. Byte
// pairs never merge across the pieces a text is cut into, so the tokens
// of a part are what dropping it saves, but for the pieces at its edges
// and what templates print about the cut (how much was left out): the fit
// only guesses with the estimate, and renders to know.
func estimateSavings(full *Result, units []budget.Planned, join string, tc TokenCounter, total int) []int {
	saved := make([]int, total+1)
	text := full.Text
	var items []shownItem
	var keys map[uint64]int32 // an item's key → its index in items, -1 once two items share it
	for _, u := range units {
		if u.Kind() != manifest.UnitList {
			continue
		}
		for _, x := range u.Items {
			key, n, ok := itemKey(x)
			if !ok {
				items = append(items, shownItem{at: -1})
				continue
			}
			if keys == nil {
				keys = make(map[uint64]int32, total)
			}
			if _, dup := keys[key]; dup {
				keys[key] = -1
			} else {
				keys[key] = int32(len(items))
			}
			items = append(items, shownItem{at: -1, length: n})
		}
	}
	if len(keys) > 0 {
		locateItems(text, keys, items)
	}
	// An item's part runs to the next one shown.
	shown := make([]int, 0, len(items))
	for i, it := range items {
		if it.at >= 0 {
			shown = append(shown, i)
		}
	}
	slices.SortFunc(shown, func(a, b int) int { return items[a].at - items[b].at })
	for j, i := range shown {
		end := items[i].at + items[i].length
		if j+1 < len(shown) {
			end = max(end, items[shown[j+1]].at)
		}
		end = min(end+1, len(text)) // and the line break or separator after it
		items[i].tokens = tc.CountTokens(text[items[i].at:end])
	}
	k, item := 0, 0
	for _, u := range units {
		switch u.Kind() {
		case manifest.UnitSection:
			if u.Steps > 0 {
				for _, s := range full.Sections {
					if s.Name == u.Section {
						saved[k+1] = tc.CountTokens(text[s.Start:s.End]) + tc.CountTokens(join)
					}
				}
			}
		case manifest.UnitList:
			for i := range u.Items {
				saved[k+1+i] = items[item].tokens
				item++
			}
		case manifest.UnitText:
			if u.Steps > 0 && strings.Contains(text, firstLine(u.Text)) {
				all, chars := tc.CountTokens(u.Text), utf8.RuneCountInString(u.Text)
				for i := range u.Steps {
					// the share of the text's tokens up to this cut, less that before it
					saved[k+1+i] = all*(i+1)/chars - all*i/chars
				}
			}
		}
		k += u.Steps
	}
	for i := 1; i <= total; i++ {
		saved[i] += saved[i-1]
	}
	return saved
}

// shownItem is where the uncut prompt shows a list item: at, the offset
// of its key text (-1 if not found), and that text's length.
type shownItem struct {
	at, length int
	tokens     int
}

// keyLen is how much of an item's longest text identifies it in a prompt:
// an item whose longest text is shorter is not looked for.
const keyLen = 16

// itemKey is the key of a list item: its longest text's first keyLen
// bytes, after leading white space, which templates often trim.
func itemKey(x any) (key uint64, n int, ok bool) {
	s := longestText(x)
	s = strings.TrimLeft(s, " \t\r\n")
	if len(s) < keyLen {
		return 0, 0, false
	}
	return windowKey(s), len(strings.TrimRight(s, " \t\r\n")), true
}

func windowKey(s string) uint64 {
	a, b := le64(s), le64(s[8:])
	return a*0x9E3779B97F4A7C15 ^ (b+0x632BE59BD9B4E019)*0xC2B2AE3D27D4EB4F
}

// le64 reads the first 8 bytes of s as a little-endian number.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// longestText is the longest string in a value, the least of those as
// long (byte order): the same whatever order a map gives its values, so
// that the estimate, and the cut it guesses, never depend on it.
func longestText(x any) string {
	switch v := x.(type) {
	case string:
		return v
	case map[string]any:
		best := ""
		for _, e := range v {
			best = longer(best, longestText(e))
		}
		return best
	case []any:
		best := ""
		for _, e := range v {
			best = longer(best, longestText(e))
		}
		return best
	}
	return ""
}

// longer is the longer of a and b, the lesser when they are as long.
func longer(a, b string) string {
	if len(b) > len(a) || len(b) == len(a) && b < a {
		return b
	}
	return a
}

// locateItems finds the items' keys in text, in one pass over the offsets
// where a text can start (the start, and after any byte that is not a
// letter or digit), and sets their offsets: the first place each shows.
func locateItems(text string, keys map[uint64]int32, items []shownItem) {
	for i := 0; i+keyLen <= len(text); i++ {
		if i > 0 && wordByte(text[i-1]) {
			continue
		}
		if j, ok := keys[windowKey(text[i:])]; ok && j >= 0 && items[j].at < 0 {
			items[j].at = i
		}
	}
}

func wordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b >= utf8.RuneSelf
}

// firstLine is the start of a text, up to its first line break or keyLen
// bytes, to look for in a prompt.
func firstLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > keyLen {
		s = s[:keyLen]
	}
	return s
}
