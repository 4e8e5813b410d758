// Package promptsmith renders the system prompts of multi-agent platforms from
// the template library embedded in this module (templates/ and schemas/).
//
//	lib, err := promptsmith.Library()
//	if err != nil {
//		return err
//	}
//	res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "req.json", Data: body})
//	if err != nil {
//		return err
//	}
//	fmt.Print(res.Text)
//
// The examples of this package (example_test.go) run this and the rest of
// docs/go.md: errors, deadlines, token budgets and a strict load of a
// working copy; server's (server/example_test.go) the HTTP server with an
// audit store.
//
// Package engine does the work; this package only holds the library.
package promptsmith

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/promptsmith/promptsmith/engine"
)

//go:embed all:templates schemas
var files embed.FS

// FS is the embedded library: templates/ and schemas/ as committed.
func FS() fs.FS { return files }

var (
	once    sync.Once
	lib     *engine.Library
	loadErr error
)

// Library returns the embedded library, loaded once. It is safe for
// concurrent use. Use engine.Load with options (a logger) for anything else.
func Library() (*engine.Library, error) {
	once.Do(func() { lib, loadErr = engine.Load(files) })
	return lib, loadErr
}
