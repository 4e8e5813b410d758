package funcs

import (
	"strings"
	"unicode/utf8"
)

func textFuncs() []Func {
	return []Func{
		{Name: "trunc", Namespace: "text", Signature: "trunc N TEXT", Fn: trunc,
			Doc: "sprig's trunc counted in characters: the first N, or with a negative N the last -N; never splits a UTF-8 sequence",
			Examples: []Example{
				{Template: `{{ trunc 5 "naïve café" }}`, Output: "naïve"},
				{Template: `{{ trunc -4 "naïve café" }}`, Output: "café"},
			}},
		{Name: "substr", Namespace: "text", Signature: "substr START END TEXT", Fn: substr,
			Doc:      "sprig's substr counted in characters: the characters from START up to END",
			Examples: []Example{{Template: `{{ substr 2 5 "naïve" }}`, Output: "ïve"}}},
		{Name: "stripFrontmatter", Namespace: "text", Signature: "stripFrontmatter TEXT", Fn: stripFrontmatter,
			Doc: "TEXT without a leading YAML frontmatter block (--- ... ---), as a SKILL.md file has",
			Examples: []Example{{Data: `{"skill": "---\nname: x\n---\n\nDo this."}`,
				Template: `{{ stripFrontmatter .skill }}`, Output: "Do this."}}},
		{Name: "fence", Namespace: "text", Signature: "fence TEXT", Fn: Fence,
			Doc: "a backtick fence longer than any run of backticks in TEXT, so that TEXT can be shown as a code block",
			Examples: []Example{{Data: "{\"code\": \"a ``` b\"}",
				Template: `{{ $f := fence .code }}{{ $f }}` + "\n" + `{{ .code }}` + "\n" + `{{ $f }}`, Output: "````\na ``` b\n````"}}},
		{Name: "trimEnd", Namespace: "text", Signature: "trimEnd TEXT", Fn: trimEnd,
			Doc:      "TEXT without the white space at its end (spaces, tabs, line breaks), as Python's rstrip gives it; cheap where regexReplaceAll would compile a pattern on every call",
			Examples: []Example{{Data: `{"s": "done.  \n\n"}`, Template: `[{{ trimEnd .s }}]`, Output: "[done.]"}}},
		{Name: "indentLines", Namespace: "text", Signature: "indentLines PREFIX TEXT", Fn: indentLines,
			Doc:      "TEXT with PREFIX written after each of its line breaks, so that its further lines stand under the first",
			Examples: []Example{{Data: `{"s": "a\nb\nc"}`, Template: `- {{ indentLines "  " .s }}`, Output: "- a\n  b\n  c"}}},
		{Name: "mdCell", Namespace: "text", Signature: "mdCell TEXT", Fn: mdCell,
			Doc:      "TEXT safe inside one cell of a markdown table: pipes escaped, line breaks made spaces",
			Examples: []Example{{Data: `{"s": "a|b\nc"}`, Template: `| {{ mdCell .s }} |`, Output: `| a\|b c |`}}},
	}
}

// cut keeps the first n characters (code points) of s.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// trunc is sprig's trunc counted in characters: a negative n keeps the end.
func trunc(n int, s string) string {
	if n >= 0 {
		return cut(s, n)
	}
	count := utf8.RuneCountInString(s)
	if count+n <= 0 {
		return s
	}
	skip := count + n
	for pos := range s {
		if skip == 0 {
			return s[pos:]
		}
		skip--
	}
	return ""
}

// substr is sprig's substr counted in characters.
func substr(start, end int, s string) string {
	r := []rune(s)
	if start < 0 {
		return string(r[:min(max(end, 0), len(r))])
	}
	if end < 0 || end > len(r) {
		return string(r[min(start, len(r)):])
	}
	if start > end {
		return ""
	}
	return string(r[start:end])
}

// stripFrontmatter removes a leading YAML frontmatter block (--- ... ---)
// and the line breaks right after it.
func stripFrontmatter(s string) string {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "---\r\n"); !ok {
			return s
		}
	}
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, "\r \t") == "---" {
			if nl < 0 {
				return ""
			}
			return strings.TrimLeft(rest[off+nl+1:], "\r\n")
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return s // no closing fence: not frontmatter
}

// Fence is a backtick fence longer than any run of backticks in s, so that
// s shown as a code block cannot end it: the templates' fence, and the
// fences of render diff's Markdown around prompts that hold code blocks.
func Fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// trimEnd removes the white space RE2's \s matches from the end of s.
func trimEnd(s string) string { return strings.TrimRight(s, " \t\n\f\r") }

// indentLines writes prefix after every line break of s that a character
// follows: regexReplaceAll "\n(.)" s "\n${prefix}${1}" without a pattern.
func indentLines(prefix, s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || i == len(s)-1 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		if s[i+1] != '\n' { // the pattern's . never matches a line break
			b.WriteString(prefix)
		}
		s = s[i+1:]
	}
}

// mdCell makes text safe for one cell of a markdown table.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.ReplaceAll(s, "\n", " ")
}
