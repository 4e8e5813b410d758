package lint

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
)

// What the templates use: the fields of the input they read, and the
// partials they include. A template that passes a value to a partial
// ({{ template "_row.tmpl" . }}, include "_row.tmpl" .) reads what the
// partial reads of it: the walker follows the partial with that value,
// quietly, as the partial is checked on its own.

// record notes that a template reads the field at path (a JSON pointer
// with * for the items of a list), whole or not.
func (w *walker) record(path string, whole bool) {
	w.reads = append(w.reads, read{path: splitPath(path), whole: whole})
	if w.sites {
		pos := w.t.Dir + "/" + w.tree.ParseName
		if w.at != nil {
			loc := w.lines.Loc(w.tree, w.at)
			pos = w.t.Dir + "/" + oneBased(loc)
		}
		w.uses = append(w.uses, Read{Template: w.top, Path: path, Whole: whole, Position: pos})
	}
}

// use notes that a template uses a value as it is: prints it, or passes it
// to a function, which may read anything inside it.
func (w *walker) use(v value) {
	if !v.open {
		w.record(v.path, true)
	}
}

// usesOf notes what a call of the function fn uses of its arguments (vals,
// and the value piped into it). Conditions (and, or, not) test their
// operands and give one back; len and empty look at a value's size; get, index and hasKey look into
// their first argument by a literal name; the list functions give their
// list's items back, whose fields the template reads on its own, and read
// the items' field they name; include's data is followed into the
// template included.
func (w *walker) usesOf(fn string, args []parse.Node, vals []value, piped *value) {
	all := vals
	if piped != nil {
		all = append(append([]value{}, vals...), *piped)
	}
	switch fn {
	case "and", "or", "not", "len", "empty", "include":
		return
	case "get", "index", "hasKey":
		if len(args) >= 2 {
			if _, ok := args[1].(*parse.StringNode); ok {
				all = all[1:] // the object, looked into by name
			}
		}
	case "sortBy", "sortByDesc", "where", "whereNot", "whereIn", "find":
		if len(all) >= 2 && len(args) >= 1 {
			list := all[len(all)-1]
			if name, ok := args[0].(*parse.StringNode); ok && !list.open {
				w.record(list.path+"/*/"+name.Text, false)
			}
		}
		return
	}
	if funcs.KeepsElements(fn) {
		return
	}
	for _, v := range all {
		w.use(v)
	}
}

// refer notes that a template names the template name.
func (w *walker) refer(name string) {
	if w.refs[name] == nil {
		w.refs[name] = map[string]bool{}
	}
	w.refs[name][w.tree.ParseName] = true
}

// include follows include NAME DATA: a literal name, or one built with
// printf from a literal format ("modes/%s.md.tmpl"), whose templates are
// those the format matches.
func (w *walker) include(nameArg parse.Node, data value) {
	switch n := nameArg.(type) {
	case *parse.StringNode:
		w.refer(n.Text)
		w.follow(n.Text, data, n)
		return
	case *parse.PipeNode:
		if re, ok := printfGlob(n); ok {
			w.patterns = append(w.patterns, re)
			for _, t := range w.t.Set.Templates() {
				if re.MatchString(t.Name()) {
					w.quiet++ // which of them runs lint cannot tell
					w.follow(t.Name(), data, n)
					w.quiet--
				}
			}
			return
		}
	}
	w.anyName = true
	w.use(data)
}

// printfGlob reads (printf "FORMAT" ...) as a pattern of the names it may
// give: each verb of FORMAT stands for any text.
func printfGlob(p *parse.PipeNode) (*regexp.Regexp, bool) {
	if len(p.Cmds) != 1 || len(p.Cmds[0].Args) < 2 {
		return nil, false
	}
	id, ok := p.Cmds[0].Args[0].(*parse.IdentifierNode)
	format, ok2 := p.Cmds[0].Args[1].(*parse.StringNode)
	if !ok || !ok2 || id.Ident != "printf" {
		return nil, false
	}
	var b strings.Builder
	b.WriteString("^")
	text := format.Text
	last := 0
	for _, loc := range printfVerb.FindAllStringIndex(text, -1) {
		b.WriteString(regexp.QuoteMeta(text[last:loc[0]]))
		if text[loc[0]:loc[1]] == "%%" {
			b.WriteString("%")
		} else {
			b.WriteString(".*")
		}
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(text[last:]) + "$")
	return regexp.MustCompile(b.String()), true
}

var printfVerb = regexp.MustCompile(`%%|%[-+# 0-9.]*[a-zA-Z]`)

// follow walks the template name on the value its caller passes (at
// node from), once per template and value: to learn what it reads of it,
// and to report a field the value has not, or a type it is not, inside
// the partial, as a section's own are (the partial's own walk does not
// know its dot). Warnings are left out there: a caller may guard.
func (w *walker) follow(name string, dot value, from parse.Node) {
	t := w.t.Set.Lookup(name)
	if dot.open || t == nil || t.Tree == nil || t.Tree.Root == nil {
		return
	}
	key := fmt.Sprintf("%s\x00%s\x00%t", name, dot.path, dot.root)
	if w.sites {
		key += "\x00" + w.top // each top template learns what its partials read
	}
	if w.followed[key] {
		return
	}
	w.followed[key] = true
	loc := w.lines.Loc(w.tree, from)
	w.via = append(w.via, fmt.Sprintf("the dot here is %s, as %s/%s passes it", objectText(dot.path), w.t.Dir, oneBased(loc)))
	tree, at := w.tree, w.at
	w.tree = t.Tree
	w.list(t.Tree.Root, newScope(dot))
	w.tree, w.at = tree, at
	w.via = w.via[:len(w.via)-1]
}

// partials warns of each partial, a file _name.tmpl, that no other file
// names with template or include, nor by a define it holds: its text is in
// no prompt. An include whose name lint cannot read may name any; one
// built with printf names those its format matches.
func (w *walker) partials() {
	if w.anyName {
		return
	}
	byFile := map[string][]string{} // the templates each file defines
	for _, t := range w.t.Set.Templates() {
		if t.Tree != nil {
			byFile[t.Tree.ParseName] = append(byFile[t.Tree.ParseName], t.Name())
		}
	}
	for file, names := range byFile {
		if !strings.HasPrefix(path.Base(file), "_") || !strings.HasSuffix(file, ".tmpl") {
			continue
		}
		used := false
		for _, name := range names {
			for from := range w.refs[name] {
				used = used || from != file
			}
			for _, re := range w.patterns {
				used = used || re.MatchString(name)
			}
		}
		if !used {
			w.add(Finding{Position: w.t.Dir + "/" + file + ":1:1", Severity: Warning, Kind: KindLint,
				Message: fmt.Sprintf("partial %s is used by no template: nothing includes it ({{ template %q . }} or include %q .); use it or delete it", file, file, file)})
		}
	}
}

// unread warns of each property of the schema that no template reads, nor
// the manifest: whatever a caller sends for it changes no prompt.
func (w *walker) unread() {
	reads := w.reads
	for _, u := range w.t.Used {
		reads = append(reads, read{path: splitPath(u), whole: true})
	}
	variant := w.t.Variant
	if variant == "" {
		variant = "the variant"
	}
	for _, p := range w.t.Properties {
		used := false
		for _, at := range p.Paths {
			field := splitPath(at)
			for _, r := range reads {
				// r reads the field or something inside it, or reads
				// something the field is inside whole.
				if prefix(field, r.path) || (r.whole && prefix(r.path, field)) {
					used = true
					break
				}
			}
			if used {
				break
			}
		}
		if !used {
			w.add(Finding{Position: p.Position, Severity: Warning, Kind: KindLint,
				Message: fmt.Sprintf("no template of %s reads %s, nor does its manifest: what a caller sends for it changes no prompt; use it, or remove it from the schema",
					variant, pathText(p.Paths[0]))})
		}
	}
}

// splitPath splits a JSON pointer into its tokens, unescaped; the root
// has none.
func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// prefix reports whether the path p begins the path of, a * in either
// standing for any one token.
func prefix(p, of []string) bool {
	if len(p) > len(of) {
		return false
	}
	for i := range p {
		if p[i] != of[i] && p[i] != "*" && of[i] != "*" {
			return false
		}
	}
	return true
}
