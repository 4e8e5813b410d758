package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/librarylint"
	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

const source = "promptsmith"

// maxChecked is the largest document whose variant is linted and rendered
// as the author types. A larger one (a 10 MB paste) would hold every
// keystroke's diagnostics up for seconds: it is only loaded (parse errors,
// manifest and schema errors), and said to be too large for the rest,
// which render lint and render test still check.
const maxChecked = 1 << 20

// check finds what is wrong with a variant as the documents have it (the
// library as a whole for ""), by file: what render lint finds (the
// variant's loading errors, every problem of each; lint's findings), each
// example validated against the schema, and, for each example that
// renders, the manifest's checks, placed on the template that should
// have written what failed.
func (s *Server) check(ctx context.Context, sn *snapshot, variant string) map[string][]protocol.Diagnostic {
	var findings []lint.Finding
	switch {
	case sn.err != nil:
		if variant == "" {
			findings = librarylint.ErrorFindings(sn.err)
		}
	case variant == "":
	default:
		if big := s.tooLarge(sn, variant); len(big) > 0 {
			if _, err := sn.lib.Variant(variant); err != nil {
				findings = librarylint.ErrorFindings(err)
			}
			findings = append(findings, big...)
			break
		}
		fs, err := librarylint.Findings(ctx, sn.lib, "", []string{variant})
		if err != nil {
			var e *engine.Error
			if !errors.As(err, &e) || e.Kind != engine.KindUsage {
				findings = librarylint.ErrorFindings(err)
			}
		}
		findings = append(findings, fs...)
		if _, err := sn.lib.Variant(variant); err == nil {
			v := s.variant(sn, variant) // and remember it as the last that loaded
			findings = append(findings, unsaid(fs, s.examples(ctx, sn, v))...)
		}
	}
	out := map[string][]protocol.Diagnostic{}
	index := map[string]*lineIndex{}
	for _, f := range librarylint.Merge(findings) {
		p, line, col, ok := splitPosition(sn.root, f.Position)
		if !ok {
			s.log.Info("finding outside the library", "position", f.Position, "message", f.Message)
			continue
		}
		if index[p] == nil {
			text, _ := sn.text(p)
			index[p] = newLineIndex(text)
		}
		d := protocol.Diagnostic{Range: rangeAt(index[p], line, col), Severity: protocol.DiagnosticSeverityError, Source: source, Message: f.Message}
		if f.Severity == lint.Warning {
			d.Severity = protocol.DiagnosticSeverityWarning
		}
		if !slices.ContainsFunc(out[p], func(o protocol.Diagnostic) bool { return o.Range == d.Range && o.Message == d.Message }) {
			out[p] = append(out[p], d)
		}
	}
	return out
}

// unsaid drops what rendering the examples found on a line where lint
// found an error already: a misspelt field fails every example that
// reaches it, in the words of text/template, where lint said it once and
// named the field it should be.
func unsaid(static, examples []lint.Finding) []lint.Finding {
	said := map[string]bool{}
	for _, f := range static {
		if f.Severity == lint.Error {
			said[fileLine(f.Position)] = true
		}
	}
	var out []lint.Finding
	for _, f := range examples {
		if !said[fileLine(f.Position)] {
			out = append(out, f)
		}
	}
	return out
}

// fileLine is a position without its column.
func fileLine(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i >= 0 && strings.Count(pos[strings.LastIndexByte(pos, '/')+1:], ":") == 2 {
		return pos[:i]
	}
	return pos
}

// tooLarge warns of the open documents of a variant (or the schemas) too
// large to check as they are typed.
func (s *Server) tooLarge(sn *snapshot, variant string) []lint.Finding {
	var out []lint.Finding
	for p, text := range sn.files.docs {
		kind, v := classify(p)
		if len(text) <= maxChecked || v != variant && kind != kindSchema {
			continue
		}
		out = append(out, lint.Finding{Position: filepath.Join(sn.root, filepath.FromSlash(p)) + ":1", Severity: lint.Warning,
			Message: "this document (" + phrase.Size(len(text)) + ") is larger than the " + phrase.Size(maxChecked) +
				" checked as you type: only its parse errors are shown here; run render lint and render test for the rest"})
	}
	return out
}

// examples renders every example of the variant: one whose input the
// schema or the rules refuse is a finding at the example's key; one that
// fails a template at the template's place; a failed check of the
// manifest where a template should have written what it looks for.
func (s *Server) examples(ctx context.Context, sn *snapshot, v *engine.Variant) []lint.Finding {
	var out []lint.Finding
	for _, name := range v.Examples() {
		if ctx.Err() != nil {
			return out
		}
		in, err := v.Example(name)
		if err != nil {
			continue
		}
		res, err := v.Render(ctx, in)
		if err == nil {
			continue
		}
		e := engine.AsError(err)
		if e.Kind == engine.KindCheck && res != nil {
			for _, f := range placeChecks(sn, v, res) {
				f.Examples = []string{name}
				out = append(out, f)
			}
			continue
		}
		for _, f := range librarylint.ErrorFindings(err) {
			if f.Position == "" {
				f.Position = in.Name
			}
			f.Examples = []string{name}
			out = append(out, f)
		}
	}
	return out
}

// publish sends the variant's diagnostics, and those of every file that
// had some before and has none now, so that fixed problems go away. A file
// gets what every variant found in it.
func (s *Server) publish(ctx context.Context, sn *snapshot, variant string, found map[string][]protocol.Diagnostic) {
	s.mu.Lock()
	if sn.root != s.root {
		s.mu.Unlock()
		return
	}
	old := s.diags[variant]
	s.diags[variant] = found
	var paths []string
	for p := range found {
		paths = append(paths, p)
	}
	for p := range old {
		paths = append(paths, p)
	}
	for p := range s.docs { // an open document hears that it is clean, too
		if kind, v := classify(p); variant != "" && (v == variant && kind != kindSchema || kind == kindSchema) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	type message struct {
		params protocol.PublishDiagnosticsParams
	}
	var msgs []message
	for _, p := range paths {
		all := []protocol.Diagnostic{}
		for _, byPath := range s.diags {
			for _, d := range byPath[p] {
				if !slices.ContainsFunc(all, func(o protocol.Diagnostic) bool { return o.Range == d.Range && o.Message == d.Message }) {
					all = append(all, d)
				}
			}
		}
		if len(all) == 0 && !s.shown[p] && s.docs[p] == nil {
			continue
		}
		s.shown[p] = len(all) > 0
		slices.SortStableFunc(all, func(a, b protocol.Diagnostic) int {
			if a.Range.Start.Line != b.Range.Start.Line {
				return int(a.Range.Start.Line) - int(b.Range.Start.Line)
			}
			return int(a.Range.Start.Character) - int(b.Range.Start.Character)
		})
		params := protocol.PublishDiagnosticsParams{URI: uriOf(sn.root, p), Diagnostics: all}
		if d := s.docs[p]; d != nil {
			params.URI = d.uri
			if d.version > 0 {
				params.Version = uint32(d.version)
			}
		}
		msgs = append(msgs, message{params})
	}
	s.mu.Unlock()
	for _, m := range msgs {
		if err := s.conn.Notify(context.WithoutCancel(ctx), protocol.MethodTextDocumentPublishDiagnostics, m.params); err != nil {
			s.log.Debug("cannot publish diagnostics", "uri", m.params.URI, "err", err)
			return
		}
	}
}

// splitPosition reads an engine position, file[:line[:col]], as a library
// path and 1-based line and column (0 when absent).
func splitPosition(root, pos string) (p string, line, col int, ok bool) {
	p = pos
	var nums []int
	for range 2 {
		i := strings.LastIndexByte(p, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(p[i+1:])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		p = p[:i]
	}
	if len(nums) > 0 {
		line = nums[0]
	}
	if len(nums) > 1 {
		col = nums[1]
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "", 0, 0, false
		}
		p = rel
	}
	p = filepath.ToSlash(p)
	if p == "" || p == "." {
		return "", 0, 0, false
	}
	return p, line, col, true
}

// rangeAt is the range a diagnostic at a 1-based line and column covers:
// the word there (a field, a function, a key), or the line's text when the
// position names no column, or the first line when it names no line.
func rangeAt(x *lineIndex, line, col int) protocol.Range {
	if line <= 0 {
		line, col = 1, 0
	}
	text := x.text
	lineStart := x.starts[min(line, len(x.starts))-1]
	lineEnd := len(text)
	if i := strings.IndexByte(text[lineStart:], '\n'); i >= 0 {
		lineEnd = lineStart + i
	}
	ln := text[lineStart:lineEnd]
	if col <= 0 {
		start := len(ln) - len(strings.TrimLeft(ln, " \t"))
		end := len(strings.TrimRight(ln, " \t\r"))
		end = max(end, start)
		return protocol.Range{Start: x.position(lineStart + start), End: x.position(lineStart + end)}
	}
	start := min(col-1, len(ln))
	if start+1 < len(ln) && ln[start] == '.' && isWordByte(ln[start+1], true) {
		start++ // a field: its name, not the dot before it
	}
	end := start
	for end < len(ln) && isWordByte(ln[end], end == start) {
		end++
	}
	if end == start && end < len(ln) {
		end++ // a punctuation mark: cover it
	}
	return protocol.Range{Start: x.position(lineStart + start), End: x.position(lineStart + end)}
}

// isWordByte reports whether b belongs to what a diagnostic underlines: a
// field's name, a variable, a function, a key, a number.
func isWordByte(b byte, first bool) bool {
	return b == '_' || b == '-' && !first || b == '$' && first || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
