// Package phrase writes the parts of messages that quote what a caller
// gave: a value quoted and cut to a bounded size, a number of bytes as a
// person reads it, the known name a typo is nearest to, the byte at which
// two texts part. Errors quote input, and input may be anything: a key of
// five million characters, a number of a hundred thousand digits. What a
// message quotes is bounded, so that it never costs more than the mistake
// is worth, nor echoes an attacker's bytes back in full.
package phrase

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Closest returns the known name nearest to name when it is near enough to
// be a typo of it, for "did you mean" hints; otherwise "".
func Closest(name string, known []string) string {
	best, bestD := "", len(name)/2+2
	lower := ""
	for _, k := range known {
		if diff := len(name) - len(k); diff >= bestD || -diff >= bestD {
			continue // the distance is at least the difference in length
		}
		if lower == "" {
			lower = strings.ToLower(name)
		}
		if d := editDistance(lower, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Size writes a number of bytes as a person reads it: 20 bytes, 4 KiB, 1 MiB.
func Size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// QuoteBytes is the most of one input value a message quotes.
const QuoteBytes = 200

// Quote is s quoted as %q quotes it, cut to QuoteBytes of s; a cut says
// how long s was.
func Quote(s string) string {
	if len(s) <= QuoteBytes {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:cutAt(s, QuoteBytes)]) + fmt.Sprintf("... (%d bytes in all)", len(s))
}

// Clip cuts s to at most n bytes, at a character boundary, and says how
// many bytes it left out.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:cutAt(s, n)] + fmt.Sprintf("... (%d more bytes)", len(s)-cutAt(s, n))
}

// cutAt is the largest character boundary of s at or below n.
func cutAt(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// GoKind is the kind of value a Go type holds, by the type's name as
// reflect and text/template print it, for messages that say the type in
// words: "string", "bool", "int", "uint", "float", "list" (a slice),
// "map", or "" for any other. Each message has words of its own for them.
func GoKind(t string) string {
	switch {
	case t == "string" || t == "bool":
		return t
	case strings.HasPrefix(t, "[]"):
		return "list"
	case strings.HasPrefix(t, "map["):
		return "map"
	case strings.HasPrefix(t, "int"):
		return "int"
	case strings.HasPrefix(t, "uint"):
		return "uint"
	case strings.HasPrefix(t, "float"):
		return "float"
	}
	return ""
}

// CommonPrefixLen is the length of the prefix a and b share: the byte at
// which two texts part, which a message names ("differs at byte N") and a
// cache report counts as the stable prefix of two renders.
func CommonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
