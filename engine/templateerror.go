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
