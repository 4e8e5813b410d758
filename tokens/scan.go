package tokens

// The scanners cut a text into the pieces the encodings' regular
// expressions match, exactly (FuzzScanMatchesPattern holds them to the
// expressions, run by regexp2), in one pass and without backtracking over
// more than one piece: each returns the end of the piece that starts at i.
// A regular expression engine tries the alternatives of a pattern in turn
// at every position; a scanner looks at the first character or two to
// know which alternative can match, then at most rescans the run it just
// read. Every character of a text belongs to some piece: every pattern
// matches any one character, so there is no text between pieces.

// scanner returns the end of the piece of s starting at i (i < len(s)).
type scanner func(t *classes, s string, i int) int

func scannerFor(encoding string) scanner {
	switch encoding {
	case "o200k_base":
		return (*classes).o200k
	case "cl100k_base":
		return (*classes).cl100k
	case "p50k_base", "r50k_base":
		return (*classes).p50k
	}
	return nil
}

// o200k follows
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func (t *classes) o200k(s string, i int) int {
	c, n := t.at(s, i)
	if end, ok := t.o200kWord(s, i, c, n); ok {
		return end + contraction(s, end, true)
	}
	if c&cNumber != 0 {
		return t.numbers(s, i, 3)
	}
	if end, ok := t.punctuation(s, i, c, n); ok {
		for end < len(s) && (s[end] == '\r' || s[end] == '\n' || s[end] == '/') {
			end++
		}
		return end
	}
	return t.spaces(s, i, true)
}

// o200kWord matches the first two alternatives of o200k's pattern, but
// for their optional contraction: a word of upper-case letters then
// lower-case ones, or of upper-case ones then perhaps lower-case ones
// (modifier and other letters and marks count as both), after one
// character that is not a letter, digit or line break.
func (t *classes) o200kWord(s string, i int, c class, n int) (int, bool) {
	if c.prefix() && i+n < len(s) {
		if end, ok := t.upperLower(s, i+n); ok {
			return end, true
		}
	}
	if end, ok := t.upperLower(s, i); ok {
		return end, true
	}
	if c.prefix() && i+n < len(s) {
		if end, ok := t.upperThenLower(s, i+n); ok {
			return end, true
		}
	}
	return t.upperThenLower(s, i)
}

// upperLower matches [upper]*[lower]+ at j: the upper-case run, then the
// lower-case run after it; when there is none, the run gives back its
// characters one by one from the end, as a backtracking engine does, until
// one of them is lower-case too.
func (t *classes) upperLower(s string, j int) (int, bool) {
	u, lastLowerEnd := j, -1
	for u < len(s) {
		c, n := t.at(s, u)
		if c&cUpper == 0 {
			break
		}
		u += n
		if c&cLower != 0 {
			lastLowerEnd = u
		}
	}
	if u < len(s) {
		if c, _ := t.at(s, u); c&cLower != 0 {
			return t.run(s, u, cLower), true
		}
	}
	return lastLowerEnd, lastLowerEnd >= 0
}

// upperThenLower matches [upper]+[lower]* at j.
func (t *classes) upperThenLower(s string, j int) (int, bool) {
	u := t.run(s, j, cUpper)
	if u == j {
		return 0, false
	}
	return t.run(s, u, cLower), true
}

// cl100k follows
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func (t *classes) cl100k(s string, i int) int {
	if k := contraction(s, i, true); k > 0 {
		return i + k
	}
	c, n := t.at(s, i)
	if c&cLetter != 0 {
		return t.run(s, i, cLetter)
	}
	if c.prefix() && i+n < len(s) {
		if next, _ := t.at(s, i+n); next&cLetter != 0 {
			return t.run(s, i+n, cLetter)
		}
	}
	if c&cNumber != 0 {
		return t.numbers(s, i, 3)
	}
	if end, ok := t.punctuation(s, i, c, n); ok {
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	return t.spaces(s, i, true)
}

// p50k follows r50k's and p50k's pattern,
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func (t *classes) p50k(s string, i int) int {
	if k := contraction(s, i, false); k > 0 {
		return i + k
	}
	c, n := t.at(s, i)
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		c, n = t.at(s, i+1)
		j = i + 1
	}
	switch {
	case c&cLetter != 0:
		return t.run(s, j, cLetter)
	case c&cNumber != 0:
		return t.numbers(s, j, len(s))
	case c.other():
		return t.otherRun(s, j+n)
	}
	return t.spaces(s, i, false)
}

// punctuation matches ` ?[^\s\p{L}\p{N}]+` at i, whose character has class c
// and length n.
func (t *classes) punctuation(s string, i int, c class, n int) (int, bool) {
	if s[i] == ' ' && i+1 < len(s) {
		if next, m := t.at(s, i+1); next.other() {
			return t.otherRun(s, i+1+m), true
		}
	}
	if c.other() {
		return t.otherRun(s, i+n), true
	}
	return 0, false
}

// spaces matches the white space alternatives at i, a white-space
// character: with lines, `\s*[\r\n]+` first (the run up to its last line
// break), then `\s+(?!\S)` (the run but for its last character, unless
// the text ends there) and `\s+`.
func (t *classes) spaces(s string, i int, lines bool) int {
	end, last, lastBreak := i, i, -1
	for end < len(s) {
		c, n := t.at(s, end)
		if c&cSpace == 0 {
			break
		}
		last = end
		end += n
		if c&cNewline != 0 {
			lastBreak = end
		}
	}
	switch {
	case lines && lastBreak >= 0:
		return lastBreak
	case end == len(s) || last == i:
		return end
	}
	return last
}

// run is the end of the run of characters of a class in mask from j.
func (t *classes) run(s string, j int, mask class) int {
	for j < len(s) {
		c, n := t.at(s, j)
		if c&mask == 0 {
			break
		}
		j += n
	}
	return j
}

// otherRun is the end of the run of [^\s\p{L}\p{N}] from j.
func (t *classes) otherRun(s string, j int) int {
	for j < len(s) {
		c, n := t.at(s, j)
		if !c.other() {
			break
		}
		j += n
	}
	return j
}

// numbers is the end of the run of at most most digits (\p{N}) from j.
func (t *classes) numbers(s string, j, most int) int {
	for k := 0; k < most && j < len(s); k++ {
		c, n := t.at(s, j)
		if c&cNumber == 0 {
			break
		}
		j += n
	}
	return j
}

// contraction is the length of the contraction ('s, 't, 're, 've, 'm,
// 'll, 'd) at i, 0 if there is none; fold matches letters of either case,
// as (?i:) does. No character outside ASCII folds to one of these letters.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	letter := func(k int) byte {
		if k >= len(s) {
			return 0
		}
		b := s[k]
		if fold && 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return b
	}
	switch letter(i + 1) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if letter(i+2) == 'e' {
			return 3
		}
	case 'l':
		if letter(i+2) == 'l' {
			return 3
		}
	}
	return 0
}
