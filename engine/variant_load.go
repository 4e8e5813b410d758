package engine

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// loadVariant reads the variant in the folder dir: its manifest, its
// schema (compiled while the rest is read: they need nothing of each
// other, and compiling is most of what loading a variant costs), its
// templates and its examples, checks that they agree and takes the
// variant's hash. What it returns holds nothing of lib: lib only names its
// positions (label) and lends its methods to the checks, through a Variant
// that is dropped after.
func (lib *Library) loadVariant(fsys fs.FS, dir string, schemas *schema.Set) (*variantFiles, error) {
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
	f := &variantFiles{name: name, manifest: m, raw: data, dir: lib.label(dir), examples: map[string]Input{}}
	v := &Variant{variantFiles: f, lib: lib}
	schemas.Start(m.Schema) // begun already when the manifest names the variant's own
	files, sources, terr := f.parseTemplates(fsys, dir, v)
	var exErr, hashErr error
	if terr == nil {
		// What needs no compiled schema is done while it compiles: the
		// first render's copy of the templates (see newVariant), the
		// examples, the variant's hash and the schema's document, which
		// the compile needs once it is done. Their errors come in their
		// turn, below.
		if set, err := v.newExecSet(); err == nil {
			f.spare.Store(set)
		}
		exErr = f.readExamples(fsys, dir, lib.label)
		hashErr = f.takeHash(fsys, dir)
		schemas.Decode(m.Schema)
	}
	f.sources = sources
	sc, err := schemas.Get(m.Schema)
	if err != nil { // a schema error comes before a template error
		return nil, err
	}
	if sc == nil {
		return nil, problem.Template(mfile, "schema %q not found", m.Schema).
			Hint("add schemas/%s.schema.json, or name an existing schema with schema: in the manifest", m.Schema)
	}
	f.schema = sc
	if terr != nil {
		return nil, v.schemaHints(terr)
	}
	if exErr != nil {
		return nil, exErr
	}
	if f.choices, err = f.validateManifest(files, sources); err != nil {
		return nil, err
	}
	if hashErr != nil {
		return nil, hashErr
	}
	return f, nil
}

// takeHash sets the variant's hash (see Provenance): of its folder's
// files and its schema's.
func (f *variantFiles) takeHash(fsys fs.FS, dir string) error {
	own := []string{"schemas/" + f.manifest.Schema + ".schema.json"}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && libraryFile(p) {
			own = append(own, p)
		}
		return err
	})
	if err != nil {
		return problem.Template(f.dir, "cannot list the variant: %v", err)
	}
	if f.hash, err = hashFiles(fsys, own); err != nil {
		return problem.Template(f.dir, "cannot read the variant: %v", err)
	}
	return nil
}

// parseTemplates parses every *.tmpl file below the variant folder into one
// set, named by its path inside the folder ("overview.md.tmpl",
// "modes/code.md.tmpl"), and the manifest's conditions next to them. It
// returns the files' names and sources, for validateManifest. v, a
// Variant of f, says what does not parse (parseError); nothing kept
// refers to it.
func (f *variantFiles) parseTemplates(fsys fs.FS, dir string, v *Variant) ([]string, map[string]string, error) {
	// These templates are parsed, never run: renders run copies (execSet),
	// bound to the library that serves them. The functions here see f alone.
	env := &funcs.Env{Templates: func() *template.Template { return f.tmpl }}
	t := template.New(f.name).Option("missingkey=error").Funcs(funcs.Map(env))
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
		return nil, nil, problem.Template(f.dir, "cannot list templates: %v", err)
	}
	sources := map[string]string{}
	for _, file := range files {
		src, err := fs.ReadFile(fsys, path.Join(dir, file))
		if err != nil {
			return nil, nil, problem.Template(f.dir+"/"+file, "cannot read template: %v", err)
		}
		sources[file] = string(src)
		if _, err := t.New(file).Parse(string(src)); err != nil {
			return nil, nil, v.parseError(file, string(src), err)
		}
	}
	conds := [][]manifest.TextRule{f.manifest.Checks.Forbid, f.manifest.Checks.Require}
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
	f.tmpl = t
	return files, sources, nil
}

func conditionName(kind string, i int) string {
	return fmt.Sprintf("prompt.yaml checks.%s[%d].when", kind, i)
}

// readExamples reads the inputs of the variant's examples folder, named
// by label as the library that loads them names its files.
func (f *variantFiles) readExamples(fsys fs.FS, dir string, label func(string) string) error {
	examples, _ := fs.Glob(fsys, path.Join(dir, "examples", "*"))
	for _, ex := range examples {
		ext := path.Ext(ex)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		b, err := fs.ReadFile(fsys, ex)
		if err != nil {
			return problem.Template(label(ex), "cannot read example: %v", err)
		}
		f.examples[strings.TrimSuffix(path.Base(ex), ext)] = Input{Name: label(ex), Data: b}
	}
	return nil
}
