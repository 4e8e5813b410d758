// Command rankgen writes the rank tables the tokens package embeds
// (ranktables/*.ranks) from the published rank files, as tiktoken-go-loader
// ships them. Run it with go generate in tokens/; TestRankTablesArePublished
// holds the embedded tables to the published files.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/promptsmith/promptsmith/tokens/internal/ranktable"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rankgen:", err)
		os.Exit(1)
	}
}

// run writes one table per encoding named in args into ranktables/.
func run(encodings []string) error {
	if err := os.MkdirAll("ranktables", 0o755); err != nil {
		return err
	}
	for _, enc := range encodings {
		ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(enc + ".tiktoken")
		if err != nil {
			return fmt.Errorf("%s: %w", enc, err)
		}
		table, err := ranktable.Build(ranks)
		if err != nil {
			return fmt.Errorf("%s: %w", enc, err)
		}
		path := filepath.Join("ranktables", enc+".ranks")
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, table, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return nil
}
