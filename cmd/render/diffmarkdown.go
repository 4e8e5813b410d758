package main

import (
	"fmt"
	"strings"
)

// markdown renders the report as a pull-request comment: a summary line,
// a table of the prompts that differ with their tokens, then each one's
// sections and unified diff, folded (<details>) so that a long diff does
// not bury the next prompt. Nothing in it depends on the machine or the
// time: the same refs give the same bytes.
func (r *diffReport) markdown() string {
	if r.Changed == 0 && len(r.VariantsAdded) == 0 && len(r.VariantsRemoved) == 0 {
		return fmt.Sprintf("No prompt changed between %s and %s (%d %s compared).\n",
			r.Base.describe(), r.Head.describe(), r.Compared, plural(r.Compared, "prompt", "prompts"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Prompts changed between %s and %s\n\n", r.Base.describe(), r.Head.describe())
	fmt.Fprintf(&b, "%d of %d %s changed: %s tokens (%s).", r.Changed, r.Compared, plural(r.Compared, "prompt", "prompts"),
		signed(r.Tokens.Delta), r.Encoding)
	for _, v := range r.VariantsAdded {
		fmt.Fprintf(&b, " Variant `%s` added.", v)
	}
	for _, v := range r.VariantsRemoved {
		fmt.Fprintf(&b, " Variant `%s` removed.", v)
	}
	if r.CacheBreaks > 0 {
		fmt.Fprintf(&b, " %d %s a cached prefix: %d tokens move from cached to uncached.", r.CacheBreaks,
			plural(r.CacheBreaks, "prompt breaks", "prompts break"), r.CacheTokensUncached)
	}
	b.WriteString("\n")
	if len(r.Prompts) == 0 {
		return b.String()
	}
	b.WriteString("\n| prompt | status | tokens | Δ |\n|---|---|--:|--:|\n")
	for _, p := range r.Prompts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.title(), p.Status, p.Tokens.span(), signed(p.Tokens.Delta))
	}
	for _, p := range r.Prompts {
		fmt.Fprintf(&b, "\n#### %s: %s, %s tokens\n\n", p.title(), p.Status, signed(p.Tokens.Delta))
		if c := p.CacheBreak; c != nil {
			fmt.Fprintf(&b, "Cached prefix changed: at token %d (byte %d), in section `%s`, before the breakpoint after `%s`; %d tokens move from cached to uncached.\n\n",
				c.Token, c.Byte, c.Section, c.Breakpoint, c.Uncached)
		}
		if len(p.Sections) > 0 {
			b.WriteString("| section | status | tokens | Δ |\n|---|---|--:|--:|\n")
			for _, s := range p.Sections {
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Name, s.Status, s.span(), signed(s.Delta))
			}
			b.WriteString("\n")
		}
		fence := fenceFor(p.Diff)
		fmt.Fprintf(&b, "<details><summary>diff</summary>\n\n%sdiff\n%s%s\n\n</details>\n", fence, p.Diff, fence)
	}
	return b.String()
}

// title names a prompt: variant/name, and where it came from when not an
// example.
func (p promptDiff) title() string {
	if p.Source == "input" {
		return fmt.Sprintf("`%s/%s` (input)", p.Variant, p.Name)
	}
	return fmt.Sprintf("`%s/%s`", p.Variant, p.Name)
}

// span is the tokens before and after.
func (d delta) span() string { return fmt.Sprintf("%d → %d", d.Base, d.Head) }

// signed writes a delta with its sign: +12, -3, 0.
func signed(n int) string {
	if n > 0 {
		return fmt.Sprintf("+%d", n)
	}
	return fmt.Sprint(n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fenceFor is a backtick fence longer than any run of backticks in text,
// so that a prompt holding a code block cannot end the diff's.
func fenceFor(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
