package lsp

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// placeChecks turns the failed checks of an example's prompt into
// findings on the templates an author would fix: the section that wrote
// what a forbid rule found or a heading that stands wrong; for a required
// heading that is missing, the template that writes it (or nearly), else
// the section after which it belongs; for a broken verbatim region, the
// template that writes its markers. What no template can be blamed for
// stays on the manifest's line that declares the check.
func placeChecks(sn *snapshot, v *engine.Variant, res *engine.Result) []lint.Finding {
	m := v.Manifest()
	dir := "templates/" + v.Name() + "/"
	sources := map[string]string{} // section name → template text
	for _, sec := range m.Sections {
		if text, ok := sn.text(dir + sec + ".md.tmpl"); ok {
			sources[sec] = text
		}
	}
	manifestText, _ := sn.text(dir + "prompt.yaml")
	at := func(p string, line, col int) string {
		return filepath.Join(sn.root, filepath.FromSlash(p)) + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	}
	// inSections places text found in a section's template, trying the
	// section named first.
	inSections := func(text, first string) string {
		order := append([]string{first}, m.Sections...)
		for _, sec := range order {
			src, ok := sources[sec]
			if !ok || text == "" {
				continue
			}
			if i := strings.Index(src, text); i >= 0 {
				line := 1 + strings.Count(src[:i], "\n")
				return at(dir+sec+".md.tmpl", line, i-strings.LastIndexByte(src[:i], '\n'))
			}
		}
		return ""
	}
	inManifest := func(text string) string {
		if i := strings.Index(manifestText, text); text != "" && i >= 0 {
			return at(dir+"prompt.yaml", 1+strings.Count(manifestText[:i], "\n"), 0)
		}
		return filepath.Join(sn.root, filepath.FromSlash(dir+"prompt.yaml"))
	}
	var out []lint.Finding
	for _, c := range res.Checks {
		if c.OK {
			continue
		}
		msg := fmt.Sprintf("check %s failed: %s", c.Check, c.Message)
		var pos string
		switch {
		case strings.HasPrefix(c.Check, "forbid "):
			text, _ := strconv.Unquote(strings.TrimPrefix(c.Check, "forbid "))
			pos = inSections(text, c.Section)
			if pos == "" && c.Section != "" {
				pos = at(dir+c.Section+".md.tmpl", 1, 0)
			}
			if pos == "" {
				pos = inManifest(text)
			}
		case c.Check == "headings":
			pos = placeHeading(m.Checks.Headings, c.Message, c.Section, sources, res, inSections, func(sec string) string { return at(dir+sec+".md.tmpl", 1, 0) })
			if pos == "" {
				pos = inManifest("headings")
			}
		case strings.HasPrefix(c.Check, "verbatim "):
			if vb, ok := v.Verbatim(strings.TrimPrefix(c.Check, "verbatim ")); ok {
				pos = inSections(vb.Start, c.Section)
			}
			if pos == "" {
				pos = inManifest("verbatim")
			}
		case strings.HasPrefix(c.Check, "require "):
			text, _ := strconv.Unquote(strings.TrimPrefix(c.Check, "require "))
			pos = inManifest(text)
		default:
			pos = inManifest(strings.Fields(c.Check)[0])
		}
		out = append(out, lint.Finding{Position: pos, Severity: lint.Error, Kind: lint.KindLint, Message: msg})
	}
	return out
}

// placeHeading finds the template that should write the required heading
// a failed headings check names: the section the check names; else the
// template that holds the heading's line; else one that holds a heading
// line near it (misspelt, another level); else the section that writes the
// required heading before it, after which it belongs.
func placeHeading(want []string, message, section string, sources map[string]string, res *engine.Result,
	inSections func(text, first string) string, top func(section string) string) string {
	missing := -1
	for i, w := range want {
		if strings.Contains(message, strconv.Quote(w)) {
			missing = i
			break
		}
	}
	if missing < 0 {
		if section != "" {
			return top(section)
		}
		return ""
	}
	w := want[missing]
	if pos := inSections(w, section); pos != "" {
		return pos
	}
	var lines []string
	for _, src := range sources {
		for _, l := range strings.Split(src, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
	}
	if near := phrase.Closest(w, lines); near != "" {
		if pos := inSections(near, section); pos != "" {
			return pos
		}
	}
	if section != "" {
		return top(section)
	}
	for i := missing - 1; i >= 0; i-- {
		for _, h := range res.Outline {
			if strings.TrimSpace(strings.Repeat("#", h.Level)+" "+h.Text) != want[i] {
				continue
			}
			for _, s := range res.Sections {
				if h.Offset >= s.Start && h.Offset < s.End {
					return top(s.Name)
				}
			}
		}
	}
	return ""
}
