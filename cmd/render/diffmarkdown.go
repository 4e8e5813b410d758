package main

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/internal/funcs"
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
	if len(r.Sources) > 0 {
		names := make([]string, len(r.Sources))
		for i, p := range r.Sources {
			names[i] = "`" + p + "`"
		}
		fmt.Fprintf(&b, "\nThe change touches %d %s: %s.\n", len(names), plural(len(names), "file", "files"), strings.Join(names, ", "))
	}
	if len(r.Prompts) == 0 {
		return b.String()
	}
	b.WriteString("\n| prompt | status | tokens | Δ |\n|---|---|--:|--:|\n")
	for _, p := range r.Prompts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.title(), p.Status, p.Tokens.span(), signed(p.Tokens.Delta))
	}
	shared := writeRepeated(&b, repeatedHunks(r.Prompts))
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
		head, hunks := splitHunks(p.Diff)
		var own strings.Builder
		left := 0
		for _, h := range hunks {
			if shared[hunkBody(h)] {
				left++
				continue
			}
			own.WriteString(h)
		}
		if own.Len() == 0 && left > 0 {
			fmt.Fprintf(&b, "Its diff is the same change shown above (%d %s).\n", left, plural(left, "hunk", "hunks"))
			continue
		}
		diff := head + own.String()
		if left > 0 {
			fmt.Fprintf(&b, "Besides %d %s shown above:\n\n", left, plural(left, "hunk", "hunks"))
		}
		fence := funcs.Fence(diff)
		fmt.Fprintf(&b, "<details><summary>diff</summary>\n\n%sdiff\n%s%s\n\n</details>\n", fence, diff, fence)
	}
	return b.String()
}

// writeRepeated writes the hunks several prompts share, each once with
// the prompts it is in, and returns their bodies, which the prompts' own
// diffs leave out.
func writeRepeated(b *strings.Builder, repeated []repeatedHunk) map[string]bool {
	shared := map[string]bool{}
	if len(repeated) == 0 {
		return shared
	}
	fmt.Fprintf(b, "\n#### The same change in several prompts\n\n%d %s several prompts share, each shown once with the prompts it is in; the diffs below leave them out.\n",
		len(repeated), plural(len(repeated), "hunk", "hunks"))
	for _, h := range repeated {
		shared[h.body] = true
		titles := make([]string, len(h.in))
		for i, p := range h.in {
			titles[i] = p.title()
		}
		fence := funcs.Fence(h.body)
		fmt.Fprintf(b, "\nIn %d prompts: %s\n\n%sdiff\n%s%s\n", len(h.in), strings.Join(titles, ", "), fence, h.body, fence)
	}
	return shared
}

// repeatedHunk is a hunk of a unified diff that several prompts' diffs
// hold alike (its lines, not where they are in each prompt).
type repeatedHunk struct {
	body string
	in   []promptDiff
}

// repeatedHunks lists the hunks found in the diffs of two prompts or more,
// in the order of their first prompt, so that a change to a section many
// prompts share is read once.
func repeatedHunks(prompts []promptDiff) []repeatedHunk {
	var order []string
	in := map[string][]promptDiff{}
	for _, p := range prompts {
		_, hunks := splitHunks(p.Diff)
		seen := map[string]bool{}
		for _, h := range hunks {
			body := hunkBody(h)
			if seen[body] {
				continue
			}
			seen[body] = true
			if _, ok := in[body]; !ok {
				order = append(order, body)
			}
			in[body] = append(in[body], p)
		}
	}
	var out []repeatedHunk
	for _, body := range order {
		if len(in[body]) > 1 {
			out = append(out, repeatedHunk{body: body, in: in[body]})
		}
	}
	return out
}

// splitHunks splits a unified diff into its header (the --- and +++
// lines) and its hunks, each from its @@ line on.
func splitHunks(diff string) (head string, hunks []string) {
	lines := strings.SplitAfter(diff, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
		i++
	}
	head = strings.Join(lines[:i], "")
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "@@") || len(hunks) == 0 {
			hunks = append(hunks, "")
		}
		hunks[len(hunks)-1] += lines[i]
	}
	return head, hunks
}

// hunkBody is a hunk without its @@ line, which says where it is.
func hunkBody(hunk string) string {
	if i := strings.IndexByte(hunk, '\n'); i >= 0 {
		return hunk[i+1:]
	}
	return ""
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
