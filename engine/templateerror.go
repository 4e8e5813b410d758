package engine

import (
	"regexp"
	"strings"
)

// text/template reports "template: NAME:LINE:COL: executing "NAME" at <.x>: msg".
// Authors need the file they edit and the line, then what to do; the rest is
// Go's internals.
var (
	execPos  = regexp.MustCompile(`template: ([^:]+(?:\[\d+\]\.when)?):(\d+)(?::(\d+))?: (?:executing "[^"]*" at <(.*?)>: )?`)
	noKey    = regexp.MustCompile(`map has no entry for key "([^"]*)"`)
	callFail = regexp.MustCompile(`^error calling (\w+): `)
)

func (v *Variant) templateError(err error) *Error {
	msg := err.Error()
	locs := execPos.FindAllStringSubmatchIndex(msg, -1)
	if locs == nil {
		return &Error{Kind: KindTemplate, Position: v.dir, Reason: msg, Err: err}
	}
	last := locs[len(locs)-1] // the innermost template, for errors inside include
	sub := func(i int) string {
		if last[2*i] < 0 {
			return ""
		}
		return msg[last[2*i]:last[2*i+1]]
	}
	file, line, col, at := sub(1), sub(2), sub(3), sub(4)
	pos := v.dir + "/" + file + ":" + line
	if strings.HasPrefix(file, "prompt.yaml ") {
		pos = v.dir + "/" + file
	}
	if col != "" {
		pos += ":" + col
	}
	reason := msg[last[1]:]
	reason = callFail.ReplaceAllString(reason, "$1: ")
	e := &Error{Kind: KindTemplate, Position: pos, Reason: reason, Err: err}
	if at != "" {
		e.Reason += " (in " + at + ")"
	}
	switch {
	case noKey.MatchString(reason):
		key := noKey.FindStringSubmatch(reason)[1]
		obj := "."
		if i := strings.LastIndex(at, "."+key); i > 0 && strings.HasPrefix(at, ".") {
			obj = at[:i]
		}
		e.Hint(`the data has no field %q here: give it a "default" in schemas/%s.schema.json, or test for it with {{ if hasKey %s %q }}`,
			key, v.manifest.Schema, obj, key)
	case strings.Contains(reason, "nil pointer evaluating"):
		e.Hint("a value on this path is null or missing; guard it with {{ with ... }}")
	case strings.Contains(reason, "can't evaluate field"):
		e.Hint("the value here is not an object; check the path against the schema")
	case strings.Contains(reason, "function") && strings.Contains(reason, "not defined"):
		e.Hint("templates/README.md lists the functions a template may call; clock, random and environment functions are left out on purpose")
	default:
		e.Hint("fix the template at that line")
	}
	return e
}

// unclosed finds the innermost {{if}}, {{range}}, {{with}}, {{define}} or
// {{block}} of src that no {{end}} closes, for an "unexpected EOF" error,
// which text/template reports at the end of the file rather than where the
// author forgot the {{end}}. It returns the keyword and the action's line
// and column.
func unclosed(src string) (keyword string, line, col int, ok bool) {
	type open struct {
		word      string
		line, col int
	}
	var stack []open
	for off := 0; ; {
		i := strings.Index(src[off:], "{{")
		if i < 0 {
			break
		}
		start := off + i
		end := actionEnd(src, start+2)
		if end < 0 {
			break
		}
		body := strings.TrimSpace(strings.Trim(strings.TrimSpace(src[start+2:end]), "-"))
		word := body
		if j := strings.IndexAny(body, " \t\r\n("); j >= 0 {
			word = body[:j]
		}
		switch word {
		case "if", "range", "with", "define", "block":
			l := 1 + strings.Count(src[:start], "\n")
			c := start - strings.LastIndexByte(src[:start], '\n')
			stack = append(stack, open{word, l, c})
		case "end":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		off = end + 2
	}
	if len(stack) == 0 {
		return "", 0, 0, false
	}
	top := stack[len(stack)-1]
	return top.word, top.line, top.col, true
}

// actionEnd finds the "}}" that ends the action whose body starts at i,
// stepping over quoted strings, raw strings and comments; -1 if none.
func actionEnd(src string, i int) int {
	for i < len(src)-1 {
		switch {
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return -1
			}
			i += j + 4
		case src[i] == '"':
			i++
			for i < len(src) && src[i] != '"' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case src[i] == '`':
			j := strings.IndexByte(src[i+1:], '`')
			if j < 0 {
				return -1
			}
			i += j + 2
		case strings.HasPrefix(src[i:], "}}"):
			return i
		default:
			i++
		}
	}
	return -1
}
