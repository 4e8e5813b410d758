package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/tokens"
)

// diffReport is what render diff reports: --format json prints it as it
// is, and markdown renders it for a pull request.
type diffReport struct {
	Base     *side  `json:"base"`
	Head     *side  `json:"head"`
	Encoding string `json:"encoding"`
	// Compared counts the prompts of either side, Changed those that
	// differ (changed, added or removed), all of them in Prompts.
	Compared        int          `json:"compared"`
	Changed         int          `json:"changed"`
	Tokens          delta        `json:"tokens"` // over the prompts in Prompts
	VariantsAdded   []string     `json:"variants_added"`
	VariantsRemoved []string     `json:"variants_removed"`
	Prompts         []promptDiff `json:"prompts"`
	// Sources are the library's files (under templates/ and schemas/)
	// that differ between the sides, added and removed ones included.
	Sources []string `json:"sources"`
	// CacheBreaks counts the prompts whose cached prefix changed, and
	// CacheTokensUncached sums the tokens each no longer finds in a
	// provider's cache: its last breakpoint's prefix less the tokens
	// before the first byte that changed.
	CacheBreaks         int `json:"cache_breaks,omitempty"`
	CacheTokensUncached int `json:"cache_tokens_uncached,omitempty"`
	counter             *tokens.Counter
}

// delta is a count of tokens at both sides: 0 on a side without the
// prompt or section.
type delta struct {
	Base  int `json:"base"`
	Head  int `json:"head"`
	Delta int `json:"delta"`
}

func newDelta(base, head int) delta { return delta{Base: base, Head: head, Delta: head - base} }

// promptDiff is one prompt that differs between the sides.
type promptDiff struct {
	Variant  string        `json:"variant"`
	Name     string        `json:"name"`   // the example's, or the input's file name without extension
	Source   string        `json:"source"` // "example", or "input" (--inputs)
	Status   string        `json:"status"` // "changed", "added" or "removed"
	Tokens   delta         `json:"tokens"`
	Sections []sectionDiff `json:"sections"` // those whose text differs
	// CacheBreak says where the change breaks the prompt's cached prefix
	// (the base's text up to its last cache breakpoint); nil when the
	// prefix is the same, or the base declares no breakpoint.
	CacheBreak *cacheBreak `json:"cache_break,omitempty"`
	Diff       string      `json:"diff"` // unified, base first
}

// cacheBreak is where a change breaks a cached prefix: the section and
// the token (counted from 0 in the base prompt) where the first changed
// byte is, the first breakpoint whose prefix it reaches, and the tokens
// that move from cached to uncached: all of the base's prefix up to its
// last breakpoint but what ends at a breakpoint before the change, which
// the head keeps (a provider caches a prefix up to a breakpoint, whole).
type cacheBreak struct {
	Section    string `json:"section"`
	Token      int    `json:"token"`
	Byte       int    `json:"byte"`
	Breakpoint string `json:"breakpoint"`
	Uncached   int    `json:"uncached_tokens"`
}

// sectionDiff is one section whose text differs.
type sectionDiff struct {
	Name   string `json:"name"`
	Status string `json:"status"` // "changed", "added" or "removed"
	delta
}

// rendered is a prompt as one side renders it; nil where the side has
// no such prompt.
type rendered struct {
	text        string
	sections    []engine.Section
	tokens      int
	breakpoints []engine.Breakpoint
}

// compare renders every prompt of every variant at both sides. A variant
// whose files both trees hold equal renders every prompt alike, and is
// only counted.
func (a *app) compare(base, head *side, inputs map[string][]namedInput, counter *tokens.Counter) (*diffReport, error) {
	r := &diffReport{Base: base, Head: head, VariantsAdded: []string{}, VariantsRemoved: []string{}, Prompts: []promptDiff{}, counter: counter}
	names := slices.Sorted(slices.Values(slices.Concat(base.lib.Names(), head.lib.Names())))
	names = slices.Compact(names)
	for _, variant := range slices.Sorted(maps.Keys(inputs)) {
		if !slices.Contains(names, variant) {
			return nil, (&engine.Error{Kind: engine.KindUsage, Flag: "--inputs", Variant: variant,
				Reason: fmt.Sprintf("inputs for %q, a variant neither %s nor %s has", variant, base.name(), head.name())}).
				Hint("name each folder of --inputs for a variant: %s", strings.Join(names, ", "))
		}
	}
	bs, hs, err := bothSides(base, head, a, a, (*side).sources)
	if err != nil {
		return nil, err
	}
	for _, variant := range names {
		vb, vh, err := bothSides(base, head, variant, variant, (*side).variant)
		if err != nil {
			return nil, err
		}
		switch {
		case vb == nil:
			r.VariantsAdded = append(r.VariantsAdded, variant)
		case vh == nil:
			r.VariantsRemoved = append(r.VariantsRemoved, variant)
		}
		examples := slices.Sorted(slices.Values(slices.Concat(examplesOf(vb), examplesOf(vh))))
		examples = slices.Compact(examples)
		if key := base.variantKey(variant, bs, nil); key != "" && key == head.variantKey(variant, hs, base.tree) {
			r.Compared += len(examples) + len(fittedOf(vb)) + len(inputs[variant])
			continue
		}
		for _, ex := range examples {
			err := r.addBoth(variant, ex, "example", vb, vh, func(s *side, v *engine.Variant) (*rendered, error) {
				return s.renderExample(a, v, ex, counter)
			})
			if err != nil {
				return nil, err
			}
		}
		// The prompts fitted to a token budget (budget_examples), which
		// render test compares too: named as their golden files are.
		fitted := slices.Sorted(slices.Values(slices.Concat(fittedOf(vb), fittedOf(vh))))
		for _, name := range slices.Compact(fitted) {
			err := r.addBoth(variant, name, "example", vb, vh, func(s *side, v *engine.Variant) (*rendered, error) {
				return s.renderFitted(a, v, name, counter)
			})
			if err != nil {
				return nil, err
			}
		}
		for _, in := range inputs[variant] {
			err := r.addBoth(variant, in.name, "input", vb, vh, func(s *side, v *engine.Variant) (*rendered, error) {
				return s.render(a, v, in.name, in.in, counter)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	r.Sources = changedSources(bs, hs)
	r.Changed = len(r.Prompts)
	for _, p := range r.Prompts {
		r.Tokens = newDelta(r.Tokens.Base+p.Tokens.Base, r.Tokens.Head+p.Tokens.Head)
	}
	return r, nil
}

// changedSources lists the library's files that differ between the
// sides, by path: what a reviewer opens to see the change the prompts
// show.
func changedSources(base, head sources) []string {
	fb, fh := base.files, head.files
	out := []string{}
	for _, p := range slices.Sorted(maps.Keys(fb)) {
		if h, ok := fh[p]; !ok || !bytes.Equal(h, fb[p]) {
			out = append(out, p)
		}
	}
	for p := range fh {
		if _, ok := fb[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// sources are a side's files under templates/ and schemas/, by path.
type sources struct {
	files map[string][]byte
	// others are the paths of the working copy's that are not among
	// files: links, which a load follows, and files over --max-file.
	others []string
	// read says that files are the side's: the embedded library's
	// are not read.
	read bool
}

// sources reads the side's files under templates/ and schemas/: a
// commit's from git, the working copy's from its folder (regular files
// within --max-file, as a load reads them).
func (s *side) sources(a *app) (sources, error) {
	var fsys fs.FS
	switch {
	case s.tree != nil:
		f, err := s.tree.Read(a.ctx)
		if err != nil {
			return sources{}, err
		}
		fsys = f
	case a.templates != "":
		fsys = os.DirFS(a.templates)
	default:
		return sources{files: map[string][]byte{}}, nil
	}
	out := sources{files: map[string][]byte{}, read: true}
	for _, top := range []string{"templates", "schemas"} {
		err := fs.WalkDir(fsys, top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == top {
					return fs.SkipDir
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			if !d.Type().IsRegular() {
				out.others = append(out.others, path)
				return nil
			}
			if info, err := d.Info(); err != nil || a.limits.FileBytes > 0 && info.Size() > int64(a.limits.FileBytes) {
				out.others = append(out.others, path)
				return err
			}
			data, err := fs.ReadFile(fsys, path)
			out.files[path] = data
			return err
		})
		if err != nil {
			return sources{}, s.fail(fileError(path.Join(a.templates, top), "cannot read the library's files", err))
		}
	}
	return out, nil
}

// variant returns the side's variant, nil when the side has none of the
// name; an error names the side.
func (s *side) variant(name string) (*engine.Variant, error) {
	if !slices.Contains(s.lib.Names(), name) {
		return nil, nil
	}
	v, err := s.lib.Variant(name)
	if err != nil {
		return nil, s.fail(err)
	}
	return v, nil
}

func examplesOf(v *engine.Variant) []string {
	if v == nil {
		return nil
	}
	return v.Examples()
}

// fittedOf names the variant's prompts fitted to a token budget
// (budget_examples) as their golden files do: <example>.<max>-tokens.
func fittedOf(v *engine.Variant) []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, be := range v.Manifest().BudgetExamples {
		out = append(out, strings.TrimSuffix(be.Golden(), ".md"))
	}
	return out
}

// renderFitted renders the budget_examples entry named name (as fittedOf
// names it) fitted to its budget; nil when the side has no such entry.
func (s *side) renderFitted(a *app, v *engine.Variant, name string, counter *tokens.Counter) (*rendered, error) {
	if v == nil {
		return nil, nil
	}
	for _, be := range v.Manifest().BudgetExamples {
		if strings.TrimSuffix(be.Golden(), ".md") != name {
			continue
		}
		in, err := v.Example(be.Example)
		if err != nil {
			return nil, s.fail(err)
		}
		tc, err := tokens.New(be.Encoding())
		if err != nil {
			return nil, s.fail(err)
		}
		return s.render(a, v, name, in, counter, engine.FitTokens(be.MaxTokens, tc))
	}
	return nil, nil
}

// renderExample renders one of the variant's examples, nil when the side
// has no such example.
func (s *side) renderExample(a *app, v *engine.Variant, example string, counter *tokens.Counter) (*rendered, error) {
	if v == nil || !slices.Contains(v.Examples(), example) {
		return nil, nil
	}
	in, err := v.Example(example)
	if err != nil {
		return nil, s.fail(err)
	}
	return s.render(a, v, example, in, counter)
}

// render renders an input with tokens counted; nil without the variant.
// A prompt that does not render, or fails a check, fails the diff, naming
// the side, the variant and the input.
func (s *side) render(a *app, v *engine.Variant, name string, in engine.Input, counter *tokens.Counter, opts ...engine.RenderOption) (*rendered, error) {
	if v == nil {
		return nil, nil
	}
	res, err := v.Render(a.ctx, in, append([]engine.RenderOption{engine.CountTokens(counter)}, opts...)...)
	if err != nil {
		e := *engine.AsError(err)
		if e.Variant == "" {
			e.Variant = v.Name()
		}
		e.Reason = fmt.Sprintf("%s/%s does not render at %s: %s", v.Name(), name, s.name(), e.Reason)
		return nil, &e
	}
	return &rendered{text: res.Text, sections: res.Sections, tokens: res.Tokens, breakpoints: res.Breakpoints}, nil
}

// bothSides runs f at the base with ofBase, then at the head with ofHead:
// the base's error is the one reported when both would fail.
func bothSides[V, T any](base, head *side, ofBase, ofHead V, f func(*side, V) (T, error)) (T, T, error) {
	b, err := f(base, ofBase)
	if err != nil {
		var zero T
		return zero, zero, err
	}
	h, err := f(head, ofHead)
	return b, h, err
}

// addBoth renders one prompt at both sides and adds the pair: an example,
// a fitted example and an input differ only in how a side renders them.
func (r *diffReport) addBoth(variant, name, source string, vb, vh *engine.Variant, render func(*side, *engine.Variant) (*rendered, error)) error {
	pb, ph, err := bothSides(r.Base, r.Head, vb, vh, render)
	if err != nil {
		return err
	}
	r.add(variant, name, source, pb, ph)
	return nil
}

// add records a prompt that differs between the sides.
func (r *diffReport) add(variant, name, source string, base, head *rendered) {
	r.Compared++
	p := promptDiff{Variant: variant, Name: name, Source: source, Status: "changed", Sections: []sectionDiff{}}
	var before, after string
	switch {
	case base == nil:
		p.Status, base = "added", &rendered{}
	case head == nil:
		p.Status, head = "removed", &rendered{}
	case base.text == head.text:
		return
	}
	before, after = base.text, head.text
	p.Tokens = newDelta(base.tokens, head.tokens)
	p.Sections = sectionDiffs(base, head)
	if p.Status == "changed" {
		p.CacheBreak = r.cacheBreakOf(base, head)
	}
	if p.CacheBreak != nil {
		r.CacheBreaks++
		r.CacheTokensUncached += p.CacheBreak.Uncached
	}
	id := variant + "/" + name
	p.Diff = udiff.Unified(r.Base.label()+":"+id, r.Head.label()+":"+id, before, after)
	r.Prompts = append(r.Prompts, p)
}

// sectionDiffs lists the sections whose text differs: the head's in its
// order, then those only the base has.
func sectionDiffs(base, head *rendered) []sectionDiff {
	type at struct {
		text   string
		tokens int
	}
	old := map[string]at{}
	for _, s := range base.sections {
		old[s.Name] = at{base.text[s.Start:s.End], s.Tokens}
	}
	out := []sectionDiff{}
	seen := map[string]bool{}
	for _, s := range head.sections {
		seen[s.Name] = true
		text := head.text[s.Start:s.End]
		b, ok := old[s.Name]
		switch {
		case !ok:
			out = append(out, sectionDiff{Name: s.Name, Status: "added", delta: newDelta(0, s.Tokens)})
		case b.text != text:
			out = append(out, sectionDiff{Name: s.Name, Status: "changed", delta: newDelta(b.tokens, s.Tokens)})
		}
	}
	for _, s := range base.sections {
		if !seen[s.Name] {
			out = append(out, sectionDiff{Name: s.Name, Status: "removed", delta: newDelta(s.Tokens, 0)})
		}
	}
	return out
}

// cacheBreakOf says where head breaks base's cached prefix (up to its last
// breakpoint), or nil when it keeps it.
func (r *diffReport) cacheBreakOf(base, head *rendered) *cacheBreak {
	if len(base.breakpoints) == 0 {
		return nil
	}
	last := base.breakpoints[len(base.breakpoints)-1]
	prefix := base.text[:last.End]
	if strings.HasPrefix(head.text, prefix) && len(head.breakpoints) > 0 && head.breakpoints[len(head.breakpoints)-1].End == last.End {
		return nil
	}
	at := phrase.CommonPrefixLen(prefix, head.text)
	cb := &cacheBreak{Byte: at, Token: r.counter.CountTokens(base.text[:at])}
	for _, s := range base.sections {
		if at < s.End {
			cb.Section = s.Name // the section it is in, or the next after a joiner
			break
		}
	}
	if cb.Section == "" && len(base.sections) > 0 {
		cb.Section = base.sections[len(base.sections)-1].Name
	}
	for _, b := range base.breakpoints {
		if at < b.End || (at == b.End && b == last) {
			cb.Breakpoint = b.Section
			break
		}
	}
	// A provider finds a prefix in its cache only whole, up to a
	// breakpoint (Anthropic hashes the blocks up to each cache_control):
	// the tokens before the change but after the last breakpoint it keeps
	// are no longer read from the cache either.
	kept := 0
	for _, b := range base.breakpoints {
		if b.End <= at && b != last && slices.ContainsFunc(head.breakpoints, func(h engine.Breakpoint) bool { return h.End == b.End }) {
			kept = b.Tokens
		}
	}
	cb.Uncached = max(last.Tokens-kept, 0)
	return cb
}
