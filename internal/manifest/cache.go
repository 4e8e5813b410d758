package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"gopkg.in/yaml.v3"
)

// MaxBreakpoints is the number of cache breakpoints a provider takes in
// one request (Anthropic's limit on cache_control blocks).
const MaxBreakpoints = 4

// Cache declares what of a prompt a provider may cache: the input fields
// that change from request to request (Volatile), and the sections after
// which a cache breakpoint goes (Breakpoints). The bytes before a
// breakpoint must not depend on a volatile field; lint proves it from the
// templates, render test by rendering each example again with each
// volatile field changed.
type Cache struct {
	// Volatile are JSON pointers of input fields that change between
	// requests (the current time, the trigger).
	Volatile []string `yaml:"volatile" json:"volatile,omitempty"`
	// Breakpoints are section names, in section order, at most four: the
	// prompt up to the end of each is a prefix a provider caches.
	Breakpoints []string `yaml:"breakpoints" json:"breakpoints,omitempty"`

	// Line is the line of cache: in prompt.yaml; VolatileLines and
	// BreakpointLines those of each entry (0 when unknown).
	Line            int   `yaml:"-" json:"-"`
	VolatileLines   []int `yaml:"-" json:"-"`
	BreakpointLines []int `yaml:"-" json:"-"`
}

// VolatileLine is the line of the i-th volatile pointer, or of cache:.
func (c *Cache) VolatileLine(i int) int {
	if i < len(c.VolatileLines) && c.VolatileLines[i] > 0 {
		return c.VolatileLines[i]
	}
	return c.Line
}

// BreakpointLine is the line of the i-th breakpoint, or of cache:.
func (c *Cache) BreakpointLine(i int) int {
	if i < len(c.BreakpointLines) && c.BreakpointLines[i] > 0 {
		return c.BreakpointLines[i]
	}
	return c.Line
}

// at is file:line, or file when the line is not known.
func at(file string, line int) string {
	if line <= 0 {
		return file
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// lines finds the lines of cache: and of its entries in the manifest's
// document (nil when it does not parse).
func (c *Cache) lines(root *yaml.Node) {
	if root == nil {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "cache" {
			continue
		}
		c.Line = root.Content[i].Line
		body := root.Content[i+1]
		for j := 0; j+1 < len(body.Content); j += 2 {
			var lines []int
			for _, item := range body.Content[j+1].Content {
				lines = append(lines, item.Line)
			}
			switch body.Content[j].Value {
			case "volatile":
				c.VolatileLines = lines
			case "breakpoints":
				c.BreakpointLines = lines
			}
		}
	}
}

// checkCache refuses a cache: that could not work: a pointer that is
// not one, a breakpoint that names no section, more than four, or
// breakpoints out of the sections' order.
func (m *Manifest) checkCache(file string, doc *yaml.Node) error {
	c := m.Cache
	if c == nil {
		return nil
	}
	c.lines(doc)
	for i, p := range c.Volatile {
		if p == "" || !pointer.Valid(p) {
			return problem.Template(at(file, c.VolatileLine(i)), "cache.volatile[%d]: %q is not a JSON pointer to an input field", i, p).
				Hint("write it as /field or /field/sub, starting with /")
		}
		if j := slices.Index(c.Volatile[:i], p); j >= 0 {
			return problem.Template(at(file, c.VolatileLine(i)), "cache.volatile[%d]: %s is listed twice", i, p).Hint("remove one")
		}
	}
	if len(c.Breakpoints) > MaxBreakpoints {
		return problem.Template(at(file, c.BreakpointLine(MaxBreakpoints)),
			"cache.breakpoints: %d breakpoints; a provider takes at most %d in one request", len(c.Breakpoints), MaxBreakpoints).
			Hint("keep the %d that end the longest stable prefixes", MaxBreakpoints)
	}
	last := -1
	for i, b := range c.Breakpoints {
		idx := slices.Index(m.Sections, b)
		if idx < 0 {
			e := problem.Template(at(file, c.BreakpointLine(i)), "cache.breakpoints[%d]: no section %q", i, b)
			if near := phrase.Closest(b, m.Sections); near != "" {
				e.Hint("did you mean %q?", near)
			}
			return e.Hint("the sections are: %s", strings.Join(m.Sections, ", "))
		}
		if idx <= last {
			return problem.Template(at(file, c.BreakpointLine(i)), "cache.breakpoints[%d]: %s is not after %s in sections", i, b, m.Sections[last]).
				Hint("list breakpoints once each, in the order of sections")
		}
		last = idx
	}
	return nil
}

// BreakpointIndexes are the indexes in Sections of the breakpoints, in
// order; none without cache:.
func (m *Manifest) BreakpointIndexes() []int {
	if m.Cache == nil {
		return nil
	}
	var out []int
	for _, b := range m.Cache.Breakpoints {
		if i := slices.Index(m.Sections, b); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}
