package engine

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"github.com/promptsmith/promptsmith/engine/funcs"
	"github.com/promptsmith/promptsmith/engine/manifest"
	"github.com/promptsmith/promptsmith/engine/problem"
	"github.com/promptsmith/promptsmith/engine/rules"
	"github.com/promptsmith/promptsmith/engine/schema"
)

// loadVariant reads the variant in the folder dir: its manifest, its
// schema (compiled while its templates parse: they need nothing of each
// other, and together they are most of what loading a variant costs), its
// templates and its examples, and checks that they agree.
func (lib *Library) loadVariant(fsys fs.FS, dir string, schemas *schema.Set) (*Variant, error) {
	name := path.Base(dir)
	mfile := lib.label(path.Join(dir, "prompt.yaml"))
	data, err := fs.ReadFile(fsys, path.Join(dir, "prompt.yaml"))
	if err != nil {
		return nil, problem.Template(mfile, "cannot read the manifest: %v", err)
	}
	m, err := manifest.Parse(mfile, data)
	if err != nil {
		return nil, err
	}
	if m.Schema == "" {
		m.Schema = name
	}
	v := &Variant{lib: lib, name: name, manifest: m, raw: data, dir: lib.label(dir), examples: map[string]Input{}}
	type compiled struct {
		sc  *schema.Schema
		err error
	}
	done := make(chan compiled, 1)
	go func() {
		sc, err := schemas.Get(m.Schema)
		done <- compiled{sc, err}
	}()
	files, sources, terr := v.parseTemplates(fsys, dir)
	c := <-done
	if c.err != nil { // a schema error comes before a template error
		return nil, c.err
	}
	if c.sc == nil {
		return nil, problem.Template(mfile, "schema %q not found", m.Schema).
			Hint("add schemas/%s.schema.json, or name an existing schema with schema: in the manifest", m.Schema)
	}
	v.schema = c.sc
	if terr != nil {
		return nil, v.schemaHints(terr)
	}
	if err := v.readExamples(fsys, dir); err != nil {
		return nil, err
	}
	choices, err := v.validateManifest(files, sources)
	if err != nil {
		return nil, err
	}
	v.rules = &rules.Checker{Rules: m.Rules, Verbatim: m.Verbatim, Choices: choices, SectionPaths: v.paths}
	return v, nil
}

// parseTemplates parses every *.tmpl file below the variant folder into one
// set, named by its path inside the folder ("overview.md.tmpl",
// "modes/code.md.tmpl"), and the manifest's conditions next to them. It
// returns the files' names and sources, for validateManifest.
func (v *Variant) parseTemplates(fsys fs.FS, dir string) ([]string, map[string]string, error) {
	// These templates are parsed, never run: renders run copies (execSet).
	env := &funcs.Env{Templates: func() *template.Template { return v.tmpl }}
	t := template.New(v.name).Option("missingkey=error").Funcs(funcs.Map(env))
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && d.Name() == "examples" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
			files = append(files, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	if err != nil {
		return nil, nil, problem.Template(v.dir, "cannot list templates: %v", err)
	}
	sources := map[string]string{}
	for _, f := range files {
		src, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			return nil, nil, problem.Template(v.dir+"/"+f, "cannot read template: %v", err)
		}
		sources[f] = string(src)
		if _, err := t.New(f).Parse(string(src)); err != nil {
			return nil, nil, v.parseError(f, string(src), err)
		}
	}
	conds := [][]manifest.TextRule{v.manifest.Checks.Forbid, v.manifest.Checks.Require}
	for k, kind := range []string{"forbid", "require"} {
		for i, r := range conds[k] {
			if r.When == "" {
				continue
			}
			if _, err := t.New(conditionName(kind, i)).Parse(r.When); err != nil {
				return nil, nil, v.parseError(conditionName(kind, i), r.When, err)
			}
		}
	}
	v.tmpl = t
	return files, sources, nil
}

func conditionName(kind string, i int) string {
	return fmt.Sprintf("prompt.yaml checks.%s[%d].when", kind, i)
}

// readExamples reads the inputs of the variant's examples folder.
func (v *Variant) readExamples(fsys fs.FS, dir string) error {
	examples, _ := fs.Glob(fsys, path.Join(dir, "examples", "*"))
	for _, ex := range examples {
		ext := path.Ext(ex)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		b, err := fs.ReadFile(fsys, ex)
		if err != nil {
			return problem.Template(v.lib.label(ex), "cannot read example: %v", err)
		}
		v.examples[strings.TrimSuffix(path.Base(ex), ext)] = Input{Name: v.lib.label(ex), Data: b}
	}
	return nil
}
