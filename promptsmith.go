// Package promptsmith renders the system prompts of multi-agent platforms from
// the template library embedded in this module (templates/ and schemas/).
//
//	lib, err := promptsmith.Library()
//	res, err := lib.Render(ctx, "delegation", engine.Input{Name: "req.json", Data: body})
//	fmt.Print(res.Text)
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
