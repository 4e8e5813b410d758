package testpostgres

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/promptsmith/promptsmith/internal/testing/scratch"
)

// A throwaway cluster's data folder is a copy of a template: the folder
// initdb made once for these server binaries, kept in the temporary
// folder that outlives the tests (scratch.Lasting) for every later run.
// initdb costs several processes and half a CPU-second a cluster; the
// copy, a few milliseconds.

// templateDir is where the template for the cluster's binaries, and the
// user the server runs as, is kept: its name changes with the binaries'
// files (a new PostgreSQL makes a new template).
func (c *Cluster) templateDir() string {
	h := sha256.New()
	for _, name := range []string{"initdb", "postgres"} {
		path := filepath.Join(c.bin, name)
		info, err := os.Stat(path)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s %d %d\n", path, info.Size(), info.ModTime().UnixNano())
	}
	fmt.Fprintf(h, "%v %d\n", c.asUser, os.Geteuid())
	return filepath.Join(scratch.Lasting(), "promptsmith-pg-template-"+hex.EncodeToString(h.Sum(nil))[:16])
}

// fromTemplate copies the template into the cluster's data folder, and
// reports whether there was one.
func (c *Cluster) fromTemplate(owner *ids) bool {
	dir := c.templateDir()
	if dir == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		return false
	}
	if err := copyTree(dir, c.data(), owner); err != nil {
		os.RemoveAll(c.data())
		return false
	}
	return true
}

// saveTemplate keeps a copy of the data folder initdb just made as the
// template, unless another process did first: the copy is made under a
// name of its own and renamed into place, so that no process ever reads
// half a template.
func (c *Cluster) saveTemplate(owner *ids) {
	dir := c.templateDir()
	if dir == "" {
		return
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp) // left only when the rename failed
	if copyTree(c.data(), filepath.Join(tmp, "data"), owner) != nil {
		return
	}
	os.Rename(filepath.Join(tmp, "data"), dir) // fails when another process's is there
}

// ids are the user and group that the files of a cluster belong to, when
// the tests run as root and the server as postgres.
type ids struct{ uid, gid int }

// copyTree copies the folder from to a new folder to, with the files'
// permissions, given to owner when it is set.
func copyTree(from, to string, owner *ids) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			err = os.Mkdir(target, info.Mode().Perm())
		case d.Type().IsRegular():
			err = copyFile(path, target, info.Mode().Perm())
		default:
			return fmt.Errorf("%s: not a file nor a folder", path)
		}
		if err != nil {
			return err
		}
		if owner != nil {
			return os.Lchown(target, owner.uid, owner.gid)
		}
		return nil
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
