package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Gathering fills input fields from the host a prompt is built on: the output
// of a command, an environment variable, a file of the project, the clock. It
// is a step of its own, before rendering, because a render reads nothing but
// its input: that is what makes the same input give the same prompt. The
// probes are declared in the manifest (gather:), so the engine knows no
// variant's fields.

// Probe fills one input field. It has exactly one source: Command, Env, File
// or Value.
type Probe struct {
	// Field is the JSON pointer of the input field the probe fills.
	Field string `yaml:"field" json:"field"`
	// Command runs in the gather directory; its standard output, without
	// trailing line breaks, is the value.
	Command []string `yaml:"command" json:"command,omitempty"`
	// Env names an environment variable; unset or empty leaves the field out.
	Env string `yaml:"env" json:"env,omitempty"`
	// File is a path inside the gather directory; a missing file leaves the
	// field out, without a warning.
	File string `yaml:"file" json:"file,omitempty"`
	// Value is one of os (runtime.GOOS), cwd (the gather directory), date
	// (today, YYYY-MM-DD) or now (the time, RFC 3339).
	Value string `yaml:"value" json:"value,omitempty"`
	// Timeout bounds a command, as a Go duration ("500ms", "5s"); default 2s.
	// The command's whole process group is killed when it expires.
	Timeout string `yaml:"timeout" json:"timeout,omitempty"`
	// Parse "json" decodes a command's output or a file as JSON.
	Parse string `yaml:"parse" json:"parse,omitempty"`
	// Keep names the keys kept of a JSON object, or of each object of a JSON
	// array; the others are dropped, so that a tool printing more than the
	// schema declares does not make the input invalid.
	Keep []string `yaml:"keep" json:"keep,omitempty"`
	// Optional says the command may not be installed: when it is not found
	// the field is left out without a warning.
	Optional bool `yaml:"optional" json:"optional,omitempty"`

	timeout time.Duration
}

// Gathered is an input field a probe filled in.
type Gathered struct {
	Field string `json:"field"`
	Value any    `json:"value"`
}

// GatherWarning says why a probe left its field out.
type GatherWarning struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (w GatherWarning) String() string { return w.Field + ": " + w.Reason }

const (
	defaultProbeTimeout = 2 * time.Second
	// maxGatherBytes refuses larger outputs and files, never truncating them.
	maxGatherBytes = 1 << 20
	// probeWaitDelay is how long a killed command's pipes may stay open, held
	// by a process that left its group, before they are closed anyway.
	probeWaitDelay = time.Second
)

// gatherClock is the one clock of the engine, read by the date and now probes.
var gatherClock = time.Now

var probeValues = []string{"os", "cwd", "date", "now"}

// checkGather refuses a manifest's probes that could not work, at load time,
// naming the probe by its index and field.
func (v *Variant) checkGather() error {
	file := v.dir + "/prompt.yaml"
	probes := v.Manifest.Gather
	for i := range probes {
		p := &probes[i]
		fail := func(format string, args ...any) *Error {
			return authorErr(file, "gather[%d] (%s): %s", i, p.Field, fmt.Sprintf(format, args...))
		}
		toks := splitPointer(p.Field)
		if !strings.HasPrefix(p.Field, "/") || len(toks) == 0 || slices.Contains(toks, "*") || slices.Contains(toks, "") {
			return fail("field must be the JSON pointer of one input field").hint("write it as /field or /object/field")
		}
		var sources []string
		if p.Command != nil {
			sources = append(sources, "command")
		}
		for _, s := range []struct{ name, value string }{{"env", p.Env}, {"file", p.File}, {"value", p.Value}} {
			if s.value != "" {
				sources = append(sources, s.name)
			}
		}
		switch {
		case len(sources) == 0:
			return fail("no source").hint("give one of command: [name, args...], env: NAME, file: PATH or value: os|cwd|date|now")
		case len(sources) > 1:
			return fail("%d sources (%s)", len(sources), strings.Join(sources, ", ")).hint("a probe fills one field from exactly one source; split it")
		}
		if p.Command != nil && (len(p.Command) == 0 || p.Command[0] == "") {
			return fail("command is empty").hint("write it as a list: command: [git, status, --short]")
		}
		if p.Value != "" && !slices.Contains(probeValues, p.Value) {
			return fail("value %q is not one of %s", p.Value, strings.Join(probeValues, ", "))
		}
		if p.File != "" && !filepath.IsLocal(p.File) {
			return fail("file %q is not a relative path inside the gather directory", p.File)
		}
		only := func(option, of string, ok bool) error {
			if ok {
				return nil
			}
			return fail("%s applies to %s only", option, of)
		}
		if p.Timeout != "" {
			if err := only("timeout", "command probes", p.Command != nil); err != nil {
				return err
			}
			d, err := time.ParseDuration(p.Timeout)
			if err != nil || d <= 0 {
				return fail("timeout %q is not a positive Go duration", p.Timeout).hint(`write it as "500ms", "2s" or "1m"`)
			}
			p.timeout = d
		}
		if p.timeout == 0 {
			p.timeout = defaultProbeTimeout
		}
		if p.Optional {
			if err := only("optional", "command probes", p.Command != nil); err != nil {
				return err
			}
		}
		if p.Parse != "" {
			if p.Parse != "json" {
				return fail("parse %q is not supported", p.Parse).hint("the only parser is json; leave parse out to take the text as it is")
			}
			if err := only("parse", "command and file probes", p.Command != nil || p.File != ""); err != nil {
				return err
			}
		}
		if len(p.Keep) > 0 {
			if err := only("keep", "probes with parse: json", p.Parse == "json"); err != nil {
				return err
			}
		}
		for j := range i {
			q := probes[j].Field
			if q == p.Field || strings.HasPrefix(p.Field, q+"/") || strings.HasPrefix(q, p.Field+"/") {
				return fail("overlaps gather[%d] (%s)", j, q).hint("each probe fills a field of its own")
			}
		}
		if why := v.schemas.undeclared(schemaURL+v.Manifest.Schema+".schema.json", "", toks, 0); why != "" {
			return fail("%s (schemas/%s.schema.json)", why, v.Manifest.Schema).
				hint("correct the pointer, or declare the field in the schema")
		}
	}
	return nil
}

// undeclared says why the schema at url#ptr does not allow the property path
// toks, or returns "". It objects only where the schema is sure (properties
// without the name and additionalProperties: false, or an array on the way);
// validation catches the rest.
func (s *schemaSet) undeclared(url, ptr string, toks []string, depth int) string {
	if len(toks) == 0 || depth > 32 {
		return ""
	}
	node, ok := s.node(url, ptr)
	if !ok {
		return ""
	}
	if _, isArray := node["items"]; isArray || node["type"] == "array" {
		return "the field is inside an array; a probe fills a whole field, such as the array itself"
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if _, ok := props[toks[0]]; ok {
			return s.undeclared(url, ptr+"/properties/"+escapePointer(toks[0]), toks[1:], depth+1)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		branches, _ := node[kw].([]any)
		for i := range branches {
			if bp := ptr + "/" + kw + "/" + itoa(i); s.declaresName(url, bp, toks[0]) {
				return s.undeclared(url, bp, toks, depth+1)
			}
		}
	}
	if ref, ok := node["$ref"].(string); ok {
		rurl, rptr := resolveRef(url, ref)
		return s.undeclared(rurl, rptr, toks, depth+1)
	}
	switch add := node["additionalProperties"].(type) {
	case bool:
		if !add {
			return fmt.Sprintf("the schema declares no field %q there", toks[0])
		}
	case map[string]any:
		return s.undeclared(url, ptr+"/additionalProperties", toks[1:], depth+1)
	}
	return ""
}

// declaresName is whether the schema at url#ptr lists name among its properties.
func (s *schemaSet) declaresName(url, ptr, name string) bool {
	node, ok := s.node(url, ptr)
	if !ok {
		return false
	}
	props, _ := node["properties"].(map[string]any)
	_, ok = props[name]
	return ok
}

// resolveRef turns a $ref found in the schema file url into a file and a
// pointer inside it.
func resolveRef(url, ref string) (string, string) {
	file, frag, found := strings.Cut(ref, "#")
	if !found {
		return schemaURL + ref, ""
	}
	if file != "" {
		url = schemaURL + file
	}
	return url, frag
}

// Gather runs the manifest's probes in dir, concurrently, and returns the
// fields they filled in and the warnings of those that could not, both in
// manifest order. A probe that fails only leaves its field out.
func (v *Variant) Gather(ctx context.Context, dir string) ([]Gathered, []GatherWarning) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	type outcome struct {
		value any
		ok    bool
		warn  string
	}
	probes := v.Manifest.Gather
	outcomes := make([]outcome, len(probes))
	var wg sync.WaitGroup
	for i := range probes {
		wg.Go(func() {
			o := &outcomes[i]
			o.value, o.ok, o.warn = probes[i].run(ctx, dir)
		})
	}
	wg.Wait()
	var found []Gathered
	var warns []GatherWarning
	for i, o := range outcomes {
		if o.ok {
			found = append(found, Gathered{Field: probes[i].Field, Value: o.value})
		} else if o.warn != "" {
			warns = append(warns, GatherWarning{Field: probes[i].Field, Reason: o.warn})
		}
	}
	return found, warns
}

// run returns the probe's value, or ok false with a warning, or with none
// when leaving the field out is normal (an unset variable, a missing file).
func (p *Probe) run(ctx context.Context, dir string) (value any, ok bool, warn string) {
	switch {
	case p.Value != "":
		switch p.Value {
		case "os":
			return runtime.GOOS, true, ""
		case "cwd":
			return dir, true, ""
		case "date":
			return gatherClock().Format(time.DateOnly), true, ""
		case "now":
			return gatherClock().Truncate(time.Second).Format(time.RFC3339), true, ""
		}
		return nil, false, fmt.Sprintf("unknown value %q", p.Value)
	case p.Env != "":
		s := os.Getenv(p.Env)
		return s, s != "", ""
	case p.File != "":
		data, err := readProjectFile(dir, p.File)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, ""
		}
		if err != nil {
			return nil, false, fmt.Sprintf("%s: %v", p.File, err)
		}
		return p.decode(p.File, data)
	}
	return p.runCommand(ctx, dir)
}

// readProjectFile reads name inside dir through an os.Root, so that neither
// ".." nor a symbolic link can lead it out of the directory being gathered.
func readProjectFile(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if st.Size() > maxGatherBytes {
		return nil, fmt.Errorf("%s is larger than the %s limit", byteSize(int(st.Size())), byteSize(maxGatherBytes))
	}
	return io.ReadAll(io.LimitReader(f, maxGatherBytes+1))
}

func (p *Probe) runCommand(ctx context.Context, dir string) (any, bool, string) {
	name := commandLine(p.Command)
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Command[0], p.Command[1:]...)
	if errors.Is(cmd.Err, exec.ErrNotFound) {
		if p.Optional {
			return nil, false, ""
		}
		return nil, false, fmt.Sprintf("%s: %s is not installed (not found on PATH)", name, p.Command[0])
	}
	cmd.Dir = dir
	stdout := &cappedBuffer{max: maxGatherBytes}
	stderr := &cappedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = probeWaitDelay
	ownProcessGroup(cmd)
	err := cmd.Run()
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, false, fmt.Sprintf("%s: timed out after %s; killed", name, p.timeout)
	case err != nil && ctx.Err() != nil:
		return nil, false, fmt.Sprintf("%s: cancelled", name)
	case err != nil:
		msg := fmt.Sprintf("%s: %v", name, err)
		if line := lastLine(stderr.String()); line != "" {
			msg += ": " + line
		}
		return nil, false, msg
	case stdout.over:
		return nil, false, fmt.Sprintf("%s: printed more than the %s limit", name, byteSize(maxGatherBytes))
	}
	return p.decode(name, bytes.TrimRight(stdout.Bytes(), "\r\n"))
}

// decode turns what a command printed or a file holds into the field's
// value: text, or with parse: json the decoded JSON, kept to Keep. Empty
// output and JSON null leave the field out, without a warning: the source
// had nothing to say.
func (p *Probe) decode(source string, data []byte) (any, bool, string) {
	if p.Parse != "json" {
		if !utf8.Valid(data) {
			data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		}
		return string(data), true, ""
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, false, ""
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, fmt.Sprintf("%s: the output is not JSON: %v", source, err)
	}
	if dec.More() {
		return nil, false, fmt.Sprintf("%s: the output holds more than one JSON value", source)
	}
	if v == nil {
		return nil, false, ""
	}
	return keepKeys(jsonValue(v), p.Keep), true, ""
}

// jsonValue converts encoding/json's numbers to the engine's int64 and float64.
func jsonValue(v any) any {
	switch c := v.(type) {
	case json.Number:
		if i, err := c.Int64(); err == nil {
			return i
		}
		f, _ := c.Float64()
		return f
	case map[string]any:
		for k, e := range c {
			c[k] = jsonValue(e)
		}
	case []any:
		for i, e := range c {
			c[i] = jsonValue(e)
		}
	}
	return v
}

// keepKeys drops the keys not in keep from an object, or from each object of
// an array.
func keepKeys(v any, keep []string) any {
	if len(keep) == 0 {
		return v
	}
	switch c := v.(type) {
	case map[string]any:
		for k := range c {
			if !slices.Contains(keep, k) {
				delete(c, k)
			}
		}
	case []any:
		for _, e := range c {
			keepKeys(e, keep)
		}
	}
	return v
}

func commandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'") {
			a = fmt.Sprintf("%q", a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	return truncateRunes(s, 200)
}

// cappedBuffer keeps at most max bytes and notes that there was more; the
// writer never fails, so the command is not killed by a broken pipe.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.over || b.Len()+len(p) > b.max {
		b.over = true
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// Complete merges gathered fields into a base input and returns the
// completed input as JSON: the base's keys in their order, gathered ones
// after them. A field the base already has wins. A gathered value the schema
// rejects is left out with a warning, so that a host that answers something
// unexpected never breaks the render; errors in the base are left for the
// render to report.
func (v *Variant) Complete(base Input, found []Gathered) ([]byte, []GatherWarning, error) {
	doc, err := decode(base)
	if err != nil {
		return nil, nil, err
	}
	defer doc.release()
	var placed []string
	for _, g := range found {
		if placeField(doc, g) {
			placed = append(placed, g.Field)
		}
	}
	var warns []GatherWarning
	for len(placed) > 0 {
		verr := v.schemas.validate(v.schema, doc)
		if verr == nil {
			break
		}
		e := AsError(verr)
		field, why := "", (*Error)(nil)
	search:
		for _, le := range append([]*Error{e}, e.Also...) {
			for _, f := range placed {
				if le.Field == f || strings.HasPrefix(le.Field, f+"/") {
					field, why = f, le
					break search
				}
			}
		}
		if field == "" {
			break
		}
		removeField(doc, field)
		placed = slices.DeleteFunc(placed, func(f string) bool { return f == field })
		warns = append(warns, GatherWarning{Field: field,
			Reason: fmt.Sprintf("left out: the gathered value does not fit the schema (%s: %s)", why.Field, why.Reason)})
	}
	out := appendJSON(nil, doc.root, true)
	return append(out, '\n'), warns, nil
}

// placeField sets a gathered field unless the base has it, creating the
// objects on its way; it reports whether it did.
func placeField(doc *document, g Gathered) bool {
	toks := splitPointer(g.Field)
	cur := doc.root
	for _, tok := range toks[:len(toks)-1] {
		next, ok := cur[tok]
		if !ok {
			m := map[string]any{}
			cur[tok] = m
			doc.order.appendKey(cur, tok)
			cur = m
			continue
		}
		m, isObject := next.(map[string]any)
		if !isObject {
			return false // the base has something else there, and wins
		}
		cur = m
	}
	last := toks[len(toks)-1]
	if _, ok := cur[last]; ok {
		return false
	}
	cur[last] = copyValue(g.Value, &doc.order)
	doc.order.appendKey(cur, last)
	return true
}

func removeField(doc *document, field string) {
	toks := splitPointer(field)
	parent, ok := lookup(doc.root, "/"+strings.Join(escapeAll(toks[:len(toks)-1]), "/"))
	m, isObject := parent.(map[string]any)
	if !ok || !isObject {
		return
	}
	last := toks[len(toks)-1]
	keys := slices.DeleteFunc(slices.Clone(orderedKeys(m)), func(k string) bool { return k == last })
	delete(m, last)
	doc.order.record(m, keys)
}

func escapeAll(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = escapePointer(t)
	}
	return out
}
