package main

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/typegen"
	"github.com/spf13/cobra"
)

var variantName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

func (a *app) newCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "new <variant>",
		Short: "Write a working skeleton of a new variant into the working copy",
		Long: `new writes a variant that works at once into the working copy (--templates DIR,
else the working copy the current directory is in, else the current
directory): a manifest, an input schema with a description on every field,
two sections, two examples that between them take every branch, their golden
files and the golden files of the variant's types. render lint (--cover
too), render test and go test ./... pass on it as it is; then make it yours,
one file at a time.`,
		Example: `  render new reviewer
  render new reviewer --templates ~/prompts`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.newVariant(args[0])
		},
	}
}

// skeleton is the variant render new writes: __NAME__ in a path or a
// file stands for the variant's name, __TITLE__ for its title, and
// __A_NAME__ for the name after its article ("a squad", "an incident").
//
//go:embed all:skeleton
var skeleton embed.FS

// skeletonFiles are the files of the skeleton for variant name, by their
// path in the library.
func skeletonFiles(name string) (map[string]string, error) {
	title := strings.ToUpper(name[:1]) + strings.ReplaceAll(name[1:], "-", " ")
	fill := strings.NewReplacer("__A_NAME__", article(name)+" "+name, "__NAME__", name, "__TITLE__", title)
	files := map[string]string{}
	err := fs.WalkDir(skeleton, "skeleton", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(skeleton, path)
		if err != nil {
			return err
		}
		files[fill.Replace(strings.TrimPrefix(path, "skeleton/"))] = fill.Replace(string(data))
		return nil
	})
	return files, err
}

// article is the indefinite article English puts before name, read as a
// word: "an" before a vowel sound ("an incident", "an owner", "an hour"),
// "a" before a consonant sound ("a squad", "a user", "a one-shot").
func article(name string) string {
	for _, p := range []string{"uni", "use", "usu", "uti", "ura", "ure", "euro", "eu", "one", "once", "ubi"} {
		if strings.HasPrefix(name, p) {
			return "a"
		}
	}
	for _, p := range []string{"hour", "honest", "honor", "heir"} {
		if strings.HasPrefix(name, p) {
			return "an"
		}
	}
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an"
	}
	return "a"
}

func (a *app) newVariant(name string) error {
	if !variantName.MatchString(name) {
		return usageError("%q is not a variant name: use lower-case letters, digits, - and _, starting with a letter", name)
	}
	if err := portableName(name); err != nil {
		return err
	}
	root := a.templates
	if root == "" {
		root = "."
	}
	if err := caseClash(root, name); err != nil {
		return err
	}
	files, err := skeletonFiles(name)
	if err != nil {
		return err
	}
	goldenDir := filepath.Join(root, "testdata", "golden")
	// What render test --update writes for the variant: the example's
	// prompt and the types of its input.
	goldens := []string{filepath.Join(goldenDir, name, "basic.md"), filepath.Join(goldenDir, name, "minimal.md")}
	for _, lang := range typegen.Langs() {
		goldens = append(goldens, filepath.Join(goldenDir, golden.TypesDir, name+lang.FileExt()))
	}
	existing := slices.Sorted(maps.Keys(files))
	for i := range existing {
		existing[i] = filepath.Join(root, existing[i])
	}
	for _, path := range append(existing, goldens...) {
		if _, err := os.Lstat(path); err == nil {
			return &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "already exists: new writes a variant that is not there yet",
				Hints: []string{"choose another name, or edit the existing variant"}}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "templates", "manifest.schema.json")); err != nil {
		data, err := fs.ReadFile(promptsmith.FS(), "templates/manifest.schema.json")
		if err == nil {
			files["templates/manifest.schema.json"] = string(data)
		}
	}
	if err := a.writeVariant(root, name, files, goldenDir); err != nil {
		return err
	}
	a.sayNext(root, name, goldens)
	return nil
}

// writeVariant writes the files of a new variant, then its golden files,
// so that render test and go test pass at once; when anything fails, it
// removes what it wrote.
func (a *app) writeVariant(root, name string, files map[string]string, goldenDir string) error {
	var written []string
	undo := func() {
		for _, f := range written {
			os.Remove(f)
		}
		os.Remove(filepath.Join(root, "templates", name, "examples"))
		os.Remove(filepath.Join(root, "templates", name))
		os.Remove(filepath.Join(goldenDir, name))
	}
	for rel, text := range files {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			undo()
			return fileError(path, "cannot create the folder", err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			undo()
			return fileError(path, "cannot write", err)
		}
		written = append(written, path)
	}
	lib, err := engine.LoadDir(root)
	if err == nil {
		_, err = lib.Variant(name)
	}
	if err == nil {
		var outcomes []golden.Outcome
		outcomes, err = golden.All(a.ctx, lib, goldenDir, []string{name}, true)
		for _, o := range outcomes {
			if o.Status == golden.Updated {
				written = append(written, o.File)
			}
			if !o.OK() && err == nil {
				err = o.Err
				if err == nil {
					err = fmt.Errorf("%s", o.String())
				}
			}
		}
	}
	if err != nil {
		undo()
	}
	return err
}

// sayNext tells what new wrote and what to do next.
func (a *app) sayNext(root, name string, goldens []string) {
	dir := filepath.Join(root, "templates", name)
	flag := ""
	if !a.workingCopyFound && root != "." {
		flag = " --templates " + root
	}
	a.say("wrote variant %s in %s:", name, dir)
	fmt.Fprintf(a.stdout, `  %[1]s/prompt.yaml             the manifest: sections, checks
  %[1]s/intro.md.tmpl, task.md.tmpl   one template per section
  %[1]s/examples/basic.yaml, minimal.yaml   example inputs, which take every branch
  %[2]s   the input's schema
  %[3]s   the examples' golden files
  %[4]s   the golden files of the input's types

Next:
  1. describe the input in the schema; give every field a description
  2. write the sections; add an example for each branch of your templates
     (render test --cover lists those no example takes)
  3. render lint %[5]s%[6]s
  4. render test %[5]s%[6]s --update, read the golden files, commit
`, dir, filepath.Join(root, "schemas", name+".schema.json"), strings.Join(goldens[:2], ", "), strings.Join(goldens[2:], ", "), name, flag)
}

// portableName refuses a variant name that Windows reserves for a device
// (CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9, whatever follows a dot: the
// schema is <name>.schema.json): a repository holding it cannot be
// checked out there. variantName already keeps out the characters
// Windows forbids in a name (< > : " / \ | ? * and control characters)
// and a trailing dot or space.
func portableName(name string) error {
	base, _, _ := strings.Cut(strings.ToLower(name), ".")
	reserved := base == "con" || base == "prn" || base == "aux" || base == "nul"
	if len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) && base[3] >= '1' && base[3] <= '9' {
		reserved = true
	}
	if !reserved {
		return nil
	}
	return &engine.Error{Kind: engine.KindUsage,
		Reason: fmt.Sprintf("%q is a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9, with any extension): "+
			"a variant of that name cannot be checked out on Windows", name),
		Hints: []string{fmt.Sprintf("choose another name, such as %s-agent", name)}}
}

// caseClash refuses a variant name equal but for case to a variant (or a
// schema) root already has: on Windows and macOS, whose file systems
// ignore case, the two would be one folder.
func caseClash(root, name string) error {
	var have []string
	if entries, err := os.ReadDir(filepath.Join(root, "templates")); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				have = append(have, e.Name())
			}
		}
	}
	if entries, err := os.ReadDir(filepath.Join(root, "schemas")); err == nil {
		for _, e := range entries {
			if s, ok := strings.CutSuffix(e.Name(), ".schema.json"); ok {
				have = append(have, s)
			}
		}
	}
	for _, h := range have {
		if h != name && strings.EqualFold(h, name) {
			return &engine.Error{Kind: engine.KindUsage, Path: filepath.Join(root, "templates", h),
				Reason: fmt.Sprintf("%q differs from the existing %q only in case: on Windows and macOS, whose file systems ignore case, both would be one folder", name, h),
				Hints:  []string{fmt.Sprintf("choose another name, or edit the variant %s", h)}}
		}
	}
	return nil
}
