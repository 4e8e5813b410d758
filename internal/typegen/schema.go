package typegen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/input"
)

// builder turns a decoded schema into a model. It lives for one Generate.
type builder struct {
	variant  string
	doc      *input.Document
	root     map[string]any
	model    *model
	taken    map[string]bool
	reserved map[string]string // $ref pointer of a definition → its type's name
	byRef    map[string]*decl
	err      error // the first schema construct that cannot be generated
}

func newBuilder(variant string, doc *input.Document) *builder {
	return &builder{
		variant:  variant,
		doc:      doc,
		root:     doc.Root,
		model:    &model{variant: variant},
		taken:    map[string]bool{},
		reserved: map[string]string{},
		byRef:    map[string]*decl{},
	}
}

// run builds the root type and, through it, every type it reaches, then
// the definitions nothing refers to, so that each definition has its type.
// Definitions get their names first, in the order they are written, so that
// a definition's name never depends on the objects met before it.
func (b *builder) run() error {
	root := &decl{name: b.claim(RootName(b.variant))}
	var defs []string
	for _, group := range []string{"$defs", "definitions"} {
		m, _ := b.root[group].(map[string]any)
		for _, k := range b.keys(m) {
			ptr := "#/" + group + "/" + escapeToken(k)
			b.reserved[ptr] = b.claim(typeName(k))
			defs = append(defs, ptr)
		}
	}
	b.model.root = root
	b.byRef["#"] = root
	b.add(root)
	b.fill(root, b.root)
	for _, ptr := range defs {
		b.ref(ptr)
	}
	return b.err
}

func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

func (b *builder) add(d *decl) { b.model.decls = append(b.model.decls, d) }

// keys returns an object's keys in the order the schema writes them.
func (b *builder) keys(m map[string]any) []string {
	if m == nil {
		return nil
	}
	return b.doc.Keys(m)
}

// hint is what a new object type is to be named: the names it may take,
// best first, and, for a doc when the schema gives none, what it is a part
// of ("An item" of "Delegation.scope_constraints").
type hint struct {
	names []string
	role  string
	of    string
}

// part is the hint for a part of the type h names: its items, its values.
func (h hint) part(suffix, role string) hint {
	out := hint{role: role, of: h.of}
	if h.role != "" {
		out.of = strings.ToLower(h.role[:1]) + h.role[1:] + " of " + h.of
	}
	for _, n := range h.names {
		out.names = append(out.names, n+suffix)
	}
	return out
}

// doc is the doc of a type named from h whose schema has no description.
func (h hint) doc() []string {
	if h.role == "" || h.of == "" {
		return nil
	}
	return []string{h.role + " of " + h.of + "."}
}

// fieldHint names the object type of field name of d: after the field alone
// for the root's fields (Parent, Delegation), else after d and the field
// (DelegationRedaction).
func (b *builder) fieldHint(d *decl, name string) hint {
	h := hint{of: d.name + "." + name, names: []string{d.name + typeName(name)}}
	if d == b.model.root {
		h.names = []string{typeName(name), d.name + typeName(name)}
	}
	return h
}

// claim takes the first free name of candidates, or the last one numbered.
func (b *builder) claim(candidates ...string) string {
	for _, c := range candidates {
		if !b.taken[c] {
			b.taken[c] = true
			return c
		}
	}
	last := candidates[len(candidates)-1]
	for i := 2; ; i++ {
		if c := fmt.Sprintf("%s%d", last, i); !b.taken[c] {
			b.taken[c] = true
			return c
		}
	}
}

// fill makes d the type of schema s: an object when s describes one with
// properties (or conditions to note), an alias otherwise.
func (b *builder) fill(d *decl, s any) {
	if m, ok := s.(map[string]any); ok && b.isObject(m, 0) {
		v := b.view(m)
		if len(v.props) > 0 || len(v.notes) > 0 {
			b.fillObject(d, v, nil)
			return
		}
	}
	d.alias = b.resolve(s, hint{names: []string{d.name}})
	if m, ok := s.(map[string]any); ok {
		d.doc = paragraphs(str(m["description"]))
	}
}

// resolve is the type of schema s; an object with properties becomes a new
// declaration named from h.
func (b *builder) resolve(s any, h hint) *typ {
	m, ok := s.(map[string]any)
	if !ok {
		if s == false {
			return &typ{kind: kindNever}
		}
		return &typ{kind: kindAny}
	}
	if ref, ok := m["$ref"].(string); ok {
		target, _ := b.lookup(ref)
		tm, _ := target.(map[string]any)
		if onlyAnnotations(m, "$ref") || tm == nil || !b.isObject(tm, 0) {
			return b.ref(ref)
		}
		return b.objectType(m, h)
	}
	if c, ok := m["const"]; ok {
		return literal([]any{c})
	}
	if e, ok := m["enum"].([]any); ok {
		return literal(e)
	}
	types := typeList(m)
	if len(types) == 0 {
		switch {
		case b.isObject(m, 0):
			types = []string{"object"}
		case m["items"] != nil:
			types = []string{"array"}
		case m["anyOf"] != nil || m["oneOf"] != nil:
			var members []*typ
			alts, _ := m["anyOf"].([]any)
			if alts == nil {
				alts, _ = m["oneOf"].([]any)
			}
			for i, alt := range alts {
				members = append(members, b.resolve(alt, h.part(fmt.Sprintf("Option%d", i+1), "An alternative")))
			}
			return union(members...)
		default:
			return &typ{kind: kindAny}
		}
	}
	var members []*typ
	for _, t := range types {
		switch t {
		case "string":
			members = append(members, &typ{kind: kindString})
		case "integer":
			members = append(members, &typ{kind: kindInteger})
		case "number":
			members = append(members, &typ{kind: kindNumber})
		case "boolean":
			members = append(members, &typ{kind: kindBoolean})
		case "null":
			members = append(members, &typ{kind: kindNull})
		case "array":
			members = append(members, &typ{kind: kindArray, elem: b.resolve(m["items"], h.part("Item", "An item"))})
		case "object":
			members = append(members, b.objectType(m, h))
		default:
			b.fail("unknown type %q", t)
		}
	}
	return union(members...)
}

// literal is the union of the literal types of values; null becomes the
// null type, and a value that is no scalar makes it admit anything.
func literal(values []any) *typ {
	var scalars []any
	var members []*typ
	for _, v := range values {
		switch {
		case v == nil:
			members = append(members, &typ{kind: kindNull})
		case isScalar(v):
			scalars = append(scalars, v)
		default:
			return &typ{kind: kindAny}
		}
	}
	if len(scalars) > 0 {
		members = append([]*typ{{kind: kindLiteral, values: scalars}}, members...)
	}
	return union(members...)
}

// objectType is the type of an object schema: a declaration when it has
// properties, else a record of its other keys.
func (b *builder) objectType(m map[string]any, h hint) *typ {
	v := b.view(m)
	if len(v.props) == 0 && len(v.notes) == 0 {
		elem := b.extraType(v, h.part("Value", "A value"))
		if elem == nil {
			elem = &typ{kind: kindNever} // an object that may hold no key
		}
		return &typ{kind: kindRecord, elem: elem}
	}
	d := &decl{name: b.claim(h.names...)}
	b.add(d)
	b.fillObject(d, v, h.doc())
	return &typ{kind: kindRef, decl: d}
}

// ref is the declared type of a definition, declared on first use.
func (b *builder) ref(ptr string) *typ {
	if d := b.byRef[ptr]; d != nil {
		return &typ{kind: kindRef, decl: d}
	}
	target, ok := b.lookup(ptr)
	if !ok {
		b.fail("$ref %q: only references inside the schema (#/$defs/...) are supported", ptr)
		return &typ{kind: kindAny}
	}
	name := b.reserved[ptr]
	if name == "" {
		name = b.claim(typeName(ptr[strings.LastIndex(ptr, "/")+1:]))
	}
	d := &decl{name: name}
	b.byRef[ptr] = d
	b.add(d)
	b.fill(d, target)
	return &typ{kind: kindRef, decl: d}
}

// lookup finds the schema a local $ref ("#/$defs/tool") points at.
func (b *builder) lookup(ptr string) (any, bool) {
	if ptr == "#" {
		return b.root, true
	}
	rest, ok := strings.CutPrefix(ptr, "#/")
	if !ok {
		return nil, false
	}
	var cur any = b.root
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func escapeToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// isObject reports whether m describes an object: by its type, or, without
// one, by object keywords of its own or of what it refers to or merges.
func (b *builder) isObject(m map[string]any, depth int) bool {
	if types := typeList(m); len(types) > 0 {
		return len(types) == 1 && types[0] == "object"
	}
	if _, ok := m["const"]; ok {
		return false
	}
	if _, ok := m["enum"]; ok {
		return false
	}
	for _, k := range []string{"properties", "additionalProperties", "unevaluatedProperties", "patternProperties", "required"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	if depth > 16 {
		return false
	}
	if ref, ok := m["$ref"].(string); ok {
		if t, ok := b.lookup(ref); ok {
			if tm, ok := t.(map[string]any); ok && b.isObject(tm, depth+1) {
				return true
			}
		}
	}
	parts, _ := m["allOf"].([]any)
	for _, p := range parts {
		if pm, ok := p.(map[string]any); ok && b.isObject(pm, depth+1) {
			return true
		}
	}
	return false
}

// view is an object schema with what it refers to and merges (allOf)
// gathered: its properties in written order, each with the schemas that
// speak of it, what is required, and notes on what a type cannot say.
type view struct {
	desc     string
	props    []string
	parts    map[string][]any
	required map[string]bool
	extra    any // additionalProperties; nil when absent
	notes    []string
}

func (b *builder) view(m map[string]any) *view {
	v := &view{parts: map[string][]any{}, required: map[string]bool{}}
	b.collect(v, m, true, 0)
	for _, k := range b.sortedRequired(v) {
		v.props = append(v.props, k)
	}
	return v
}

// sortedRequired lists the required names that no properties keyword
// declares, in sorted order.
func (b *builder) sortedRequired(v *view) []string {
	var out []string
	for k := range v.required {
		if _, ok := v.parts[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func (b *builder) collect(v *view, m map[string]any, top bool, depth int) {
	if depth > 16 {
		b.fail("$ref or allOf nested more than 16 levels")
		return
	}
	if top && v.desc == "" {
		v.desc = str(m["description"])
	}
	if ref, ok := m["$ref"].(string); ok {
		t, ok := b.lookup(ref)
		if !ok {
			b.fail("$ref %q: only references inside the schema (#/$defs/...) are supported", ref)
		} else if tm, ok := t.(map[string]any); ok {
			b.collect(v, tm, top && v.desc == "", depth+1)
		}
	}
	props, _ := m["properties"].(map[string]any)
	for _, k := range b.keys(props) {
		if _, seen := v.parts[k]; !seen {
			v.props = append(v.props, k)
		}
		v.parts[k] = append(v.parts[k], props[k])
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				v.required[s] = true
			}
		}
	}
	for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
		if ap, ok := m[k]; ok && v.extra == nil {
			v.extra = ap
		}
	}
	if _, ok := m["if"]; ok {
		if note := b.conditional(m); note != "" {
			v.notes = append(v.notes, note)
		}
	}
	if parts, ok := m["allOf"].([]any); ok {
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				b.collect(v, pm, false, depth+1)
			}
		}
	}
	if _, ok := m["anyOf"]; ok {
		v.notes = append(v.notes, "It must also match one or more of the alternatives under anyOf in the JSON Schema.")
	}
	if _, ok := m["oneOf"]; ok {
		v.notes = append(v.notes, "It must also match exactly one of the alternatives under oneOf in the JSON Schema.")
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, k := range b.keys(pp) {
			v.notes = append(v.notes, "Keys matching the pattern "+jsonText(k)+" follow the JSON Schema's patternProperties.")
		}
	}
	for _, k := range []string{"dependentRequired", "dependentSchemas", "propertyNames", "minProperties", "maxProperties"} {
		if _, ok := m[k]; ok {
			v.notes = append(v.notes, "The JSON Schema's "+k+" applies.")
		}
	}
}

// fillObject makes d the object v describes; fallback is its doc when the
// schema has no description.
func (b *builder) fillObject(d *decl, v *view, fallback []string) {
	d.doc = paragraphs(v.desc)
	if len(d.doc) == 0 {
		d.doc = fallback
	}
	obj := &object{}
	for _, name := range v.props {
		obj.fields = append(obj.fields, b.field(d, name, v.parts[name], v.required[name]))
	}
	obj.extra = b.extraType(v, hint{names: []string{d.name + "Value"}, role: "A value of another key", of: d.name})
	d.object = obj
	if len(v.notes) > 0 {
		lines := []string{"Checked by the renderer, not by this type:"}
		for _, n := range v.notes {
			lines = append(lines, "- "+n)
		}
		d.doc = append(d.doc, strings.Join(lines, "\n"))
	}
}

// extraType is the type of the values of keys an object's properties do not
// name: nil when there may be none (additionalProperties: false).
func (b *builder) extraType(v *view, h hint) *typ {
	switch ap := v.extra.(type) {
	case nil:
		return &typ{kind: kindAny}
	case bool:
		if ap {
			return &typ{kind: kindAny}
		}
		return nil
	}
	return b.resolve(v.extra, h)
}

// field is property name of d, from the schemas that speak of it: the
// property's own, and any that allOf or a referring schema adds. A false
// among them forbids the property; the last description is the most
// specific; the first schema that says more than annotations gives its type.
func (b *builder) field(d *decl, name string, parts []any, required bool) *field {
	f := &field{name: name, required: required}
	var desc string
	var substantive map[string]any
	never := false
	for _, p := range parts {
		switch p := p.(type) {
		case bool:
			never = never || !p
		case map[string]any:
			if s := str(p["description"]); s != "" {
				desc = s
			}
			if def, ok := p["default"]; ok && !f.hasDef {
				f.def, f.hasDef = b.freeze(def), true
			}
			if s := str(p["format"]); s != "" && f.format == "" {
				f.format = s
			}
			if substantive == nil && !onlyAnnotations(p) {
				substantive = p
			}
		}
	}
	f.doc = paragraphs(desc)
	switch {
	case never:
		f.typ = &typ{kind: kindNever}
	case substantive == nil:
		f.typ = &typ{kind: kindAny}
	default:
		f.typ = b.resolve(substantive, b.fieldHint(d, name))
		// The description of a list's items or a record's values would be
		// lost where they are not a declaration of their own.
		if f.typ.kind == kindArray || f.typ.kind == kindRecord {
			inner := substantive["items"]
			label := "Each item: "
			if f.typ.kind == kindRecord {
				inner, label = substantive["additionalProperties"], "Each value: "
			}
			if im, ok := inner.(map[string]any); ok && f.typ.elem.kind != kindRef {
				if s := str(im["description"]); s != "" {
					f.doc = append(f.doc, label+s)
				}
			}
		}
	}
	return f
}

// conditional states an if/then/else of m in words.
func (b *builder) conditional(m map[string]any) string {
	cond := b.condition(m["if"], "")
	then, els := b.effect(m["then"]), b.effect(m["else"])
	var s string
	if then != "" {
		s = "When " + cond + ": " + then + "."
	}
	if els != "" {
		if s != "" {
			s += " Otherwise: " + els + "."
		} else {
			s = "Unless " + cond + ": " + els + "."
		}
	}
	return s
}

// condition states an if schema: "access is "restricted" or "revoked"".
func (b *builder) condition(s any, prefix string) string {
	m, ok := s.(map[string]any)
	if !ok {
		return "the JSON Schema's condition holds"
	}
	var parts []string
	props, _ := m["properties"].(map[string]any)
	for _, k := range b.keys(props) {
		p, _ := props[k].(map[string]any)
		name := prefix + k
		switch {
		case p == nil:
			parts = append(parts, name+" matches the JSON Schema's condition")
		case p["const"] != nil:
			parts = append(parts, name+" is "+jsonText(p["const"]))
		case p["enum"] != nil:
			vals, _ := p["enum"].([]any)
			var texts []string
			for _, v := range vals {
				texts = append(texts, jsonText(v))
			}
			parts = append(parts, name+" is "+join(texts, "or"))
		case p["properties"] != nil:
			parts = append(parts, b.condition(p, name+"."))
		default:
			parts = append(parts, name+" matches the JSON Schema's condition")
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if k, ok := r.(string); ok {
				if _, named := props[k]; !named {
					parts = append(parts, prefix+k+" is present")
				}
			}
		}
	}
	if len(parts) == 0 {
		return "the JSON Schema's condition holds"
	}
	return strings.Join(parts, " and ")
}

// effect states a then or else schema: "reason and alternative are
// required; planName must be absent".
func (b *builder) effect(s any) string {
	m, ok := s.(map[string]any)
	if !ok {
		if s == false {
			return "the object is refused"
		}
		return ""
	}
	var parts []string
	if req, ok := m["required"].([]any); ok && len(req) > 0 {
		var names []string
		for _, r := range req {
			names = append(names, fmt.Sprint(r))
		}
		verb := " are required"
		if len(names) == 1 {
			verb = " is required"
		}
		parts = append(parts, join(names, "and")+verb)
	}
	props, _ := m["properties"].(map[string]any)
	var absent, other []string
	for _, k := range b.keys(props) {
		if props[k] == false {
			absent = append(absent, k)
		} else {
			other = append(other, k)
		}
	}
	if len(absent) > 0 {
		parts = append(parts, join(absent, "and")+" must be absent")
	}
	if len(other) > 0 {
		parts = append(parts, join(other, "and")+" must match the JSON Schema's condition")
	}
	for k := range m {
		if k != "required" && k != "properties" && !isAnnotation(k) {
			parts = append(parts, "further constraints of the JSON Schema apply")
			break
		}
	}
	return strings.Join(parts, "; ")
}

// orderedObject is a JSON object of a default value, keys as written.
type orderedObject struct {
	keys   []string
	values map[string]any
}

// freeze copies a value of the schema with its objects' key order, which
// the document forgets once released.
func (b *builder) freeze(v any) any {
	switch v := v.(type) {
	case map[string]any:
		o := &orderedObject{keys: b.keys(v), values: map[string]any{}}
		for _, k := range o.keys {
			o.values[k] = b.freeze(v[k])
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = b.freeze(e)
		}
		return out
	}
	return v
}

func typeList(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// isAnnotation reports whether a keyword only annotates a schema: a schema
// of nothing but annotations admits any value.
func isAnnotation(k string) bool {
	switch k {
	case "description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
		"format", "contentMediaType", "contentEncoding", "$schema", "$id", "$anchor", "$defs", "definitions":
		return true
	}
	return false
}

// onlyAnnotations reports whether m has no keywords but annotations and
// those in except.
func onlyAnnotations(m map[string]any, except ...string) bool {
	for k := range m {
		if !isAnnotation(k) && !slices.Contains(except, k) {
			return false
		}
	}
	return true
}

// join lists items in words: "a", "a and b", "a, b and c".
func join(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
