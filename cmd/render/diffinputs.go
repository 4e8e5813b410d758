package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/regular"
)

// namedInput is an input of render diff --inputs: DIR/<variant>/<name>.yaml.
type namedInput struct {
	name string
	in   engine.Input
}

// diffInputs reads render diff's --inputs folder: one folder per variant,
// named for it, holding inputs as files named <name>.yaml, .yml or .json.
// A folder per variant, rather than a key in each input, leaves the
// inputs exactly as the variant takes them, as a platform captured them.
// Anything else in the folder is refused, so that a misplaced input is
// not silently left out.
func (a *app) diffInputs(dir string) (map[string][]namedInput, error) {
	if dir == "" {
		return nil, nil
	}
	variants, err := os.ReadDir(dir)
	if err != nil {
		return nil, fileError(dir, "cannot read --inputs", err)
	}
	out := map[string][]namedInput{}
	for _, v := range variants {
		if !v.IsDir() {
			return nil, (&engine.Error{Kind: engine.KindUsage, Flag: "--inputs", Path: filepath.Join(dir, v.Name()),
				Reason: "an input outside a variant's folder"}).Hint("put each input at %s", filepath.Join(dir, "<variant>", "<name>.yaml"))
		}
		files, err := os.ReadDir(filepath.Join(dir, v.Name()))
		if err != nil {
			return nil, fileError(filepath.Join(dir, v.Name()), "cannot read --inputs", err)
		}
		for _, f := range files {
			path := filepath.Join(dir, v.Name(), f.Name())
			ext := filepath.Ext(f.Name())
			if f.IsDir() || ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil, (&engine.Error{Kind: engine.KindUsage, Flag: "--inputs", Path: path,
					Reason: "not an input: inputs are files named <name>.yaml, .yml or .json"}).Hint("move it out of %s", dir)
			}
			if err := regular.Check(path, f); err != nil {
				// A named pipe would block render diff until a writer
				// came; a device might never end.
				return nil, (&engine.Error{Kind: engine.KindUsage, Flag: "--inputs", Path: path,
					Reason: "cannot read the input: " + err.Error(), Err: err}).Hint("inputs are regular files: move it out of %s, or write what it holds to a file there", dir)
			}
			name := strings.TrimSuffix(f.Name(), ext)
			if slices.ContainsFunc(out[v.Name()], func(n namedInput) bool { return n.name == name }) {
				return nil, (&engine.Error{Kind: engine.KindUsage, Flag: "--inputs", Path: path,
					Reason: fmt.Sprintf("a second input named %q for %s", name, v.Name())}).Hint("give each input of a variant a name of its own")
			}
			in, err := a.readInput(path)
			if err != nil {
				return nil, err
			}
			out[v.Name()] = append(out[v.Name()], namedInput{name: name, in: in})
		}
	}
	return out, nil
}
