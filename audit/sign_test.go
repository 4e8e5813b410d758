package audit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// testKey is a key of the size openssl rand -hex 32 writes.
var testKey = []byte(strings.Repeat("0123456789abcdef", 4))

// signedRows is how many rows of prompts and ids the fixture has: four
// prompts and an id for the chain, two and one for the other prompt.
const signedRows = 4 + 1 + 2 + 1

// TestSigned: a store with a key signs every row it writes, and reads them
// back; read without the key, the same store reads as any other, and
// Verify says it checked no signatures.
func TestSigned(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		f := newFixture(t, b, audit.WithKey(testKey))
		for link := range f.links {
			f.served(t, f.store, link)
		}
		rep, err := f.store.Verify(context.Background())
		if err != nil || len(rep.Problems) != 0 || !rep.Signatures || rep.Signed != signedRows {
			t.Fatalf("Verify with the key: %+v %v", rep, err)
		}
		if n := count(t, f.db, `SELECT count(*) FROM prompts WHERE length(signature) = 64`) +
			count(t, f.db, `SELECT count(*) FROM ids WHERE length(signature) = 64`); n != signedRows {
			t.Errorf("%d rows signed, want %d", n, signedRows)
		}
		plain := readOnly(t, b.target)
		for link := range f.links {
			f.served(t, plain, link)
		}
		rep, err = plain.Verify(context.Background())
		if err != nil || len(rep.Problems) != 0 || rep.Signatures || rep.Signed != signedRows {
			t.Fatalf("Verify without the key: %+v %v", rep, err)
		}
	})
}

// TestForgeries alters a signed store the ways someone who can write to
// the database, but has no key, could: with the key, every read of what
// was forged fails naming the row, and Verify reports it; without the key,
// the store reads as before (only the addresses are checked, and these
// forgeries keep them true).
func TestForgeries(t *testing.T) {
	t.Parallel()
	cases := []forgery{
		{
			name: "a record by a writer without the key",
			forge: func(t *testing.T, f *fixture) {
				w := open(t, f.b.target)
				recordDelegation(t, w, delegate(t, "# Forged\n", "t"))
			},
			read: func(t *testing.T, f *fixture) string { return f.hashOf(t, "# Forged\n") },
			want: func(t *testing.T, f *fixture) []string {
				top, root := f.hashOf(t, "# Forged\n"), f.leafOf(t, "# Forged\n")
				return []string{"prompts hash=" + top, "prompts hash=" + root,
					"ids name=delegation_id value=" + f.idOf(t, "# Forged\n") + " hash=" + top}
			},
			reason: "has no signature",
		},
		promptForgery("metadata changed", `UPDATE prompts SET variant = 'forged' WHERE hash = ?`,
			"its signature does not verify", top),
		promptForgery("a region renamed, which the address does not cover", `UPDATE parts SET region = 'forged' WHERE hash = ? AND seq = 0`,
			"its signature does not verify", top),
		promptForgery("a signature copied from another row", `UPDATE prompts SET signature = (SELECT signature FROM prompts WHERE hash = ?) WHERE hash = ?`,
			"its signature does not verify", mid2, mid1),
		promptForgery("a signature removed", `UPDATE prompts SET signature = '' WHERE hash = ?`,
			"has no signature", root),
		{
			name: "an id pointed at another prompt",
			forge: func(t *testing.T, f *fixture) {
				f.exec(t, `UPDATE ids SET hash = ? WHERE hash = ?`, f.other, f.links[top])
			},
			read: func(t *testing.T, f *fixture) string { return f.other },
			want: func(t *testing.T, f *fixture) []string {
				return []string{"ids name=delegation_id value=" + f.last.IDs["delegation_id"] + " hash=" + f.other}
			},
			reason: "its signature does not verify",
		},
		{
			name: "an id inserted",
			forge: func(t *testing.T, f *fixture) {
				f.exec(t, `INSERT INTO ids(name, value, hash) VALUES('delegation_id', 'dlg-forged', ?)`, f.links[mid1])
			},
			read: atLink(mid1),
			want: func(t *testing.T, f *fixture) []string {
				return []string{"ids name=delegation_id value=dlg-forged hash=" + f.links[mid1]}
			},
			reason: "has no signature",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, b backend) {
				f := newFixture(t, b, audit.WithKey(testKey))
				tc.forge(t, f)
				want := tc.want(t, f)
				slices.Sort(want)
				keyed := readOnly(t, b.target, audit.WithKey(testKey))
				f.refused(t, keyed, tc.read(t, f), want)
				if _, err := keyed.Get(context.Background(), tc.read(t, f)); err == nil || !strings.Contains(err.Error(), tc.reason) {
					t.Errorf("Get with the key: %v, want %q", err, tc.reason)
				}
				rep, err := keyed.Verify(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if got := rows(rep.Problems); !slices.Equal(got, want) {
					t.Errorf("Verify names\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				for _, p := range rep.Problems {
					if !strings.Contains(p.Reason, tc.reason) {
						t.Errorf("%s, want %q", p, tc.reason)
					}
				}

				// Without the key, the old behaviour: served, and Verify
				// finds nothing wrong with the addresses.
				plain := readOnly(t, b.target)
				if _, err := plain.Get(context.Background(), tc.read(t, f)); err != nil {
					t.Errorf("Get without the key: %v", err)
				}
				if rep, err := plain.Verify(context.Background()); err != nil || len(rep.Problems) != 0 {
					t.Errorf("Verify without the key: %v %v", rep.Problems, err)
				}
			})
		})
	}
}

// atLink reads the prompt at link i of the fixture's chain.
func atLink(i int) func(*testing.T, *fixture) string {
	return func(_ *testing.T, f *fixture) string { return f.links[i] }
}

// forgery is a way to alter a signed store without the key.
type forgery struct {
	name   string
	forge  func(t *testing.T, f *fixture)
	read   func(t *testing.T, f *fixture) string   // a prompt whose reads the forgery reaches
	want   func(t *testing.T, f *fixture) []string // the rows Verify names, with the key
	reason string                                  // what each says
}

// promptForgery alters the prompts row of the last of links by running
// query on the hashes of links, in order: reads of that prompt fail, and
// Verify names its row.
func promptForgery(name, query, reason string, links ...int) forgery {
	at := links[len(links)-1]
	return forgery{name: name, reason: reason, read: atLink(at), want: promptRow(at),
		forge: func(t *testing.T, f *fixture) {
			args := make([]any, len(links))
			for i, l := range links {
				args[i] = f.links[l]
			}
			f.exec(t, query, args...)
		}}
}

// promptRow wants Verify to name the row of prompts of link i.
func promptRow(i int) func(*testing.T, *fixture) []string {
	return func(_ *testing.T, f *fixture) []string { return []string{"prompts hash=" + f.links[i]} }
}

// hashOf returns the address of the delegation recorded with parent
// parent, by its delegation_id.
func (f *fixture) hashOf(t *testing.T, parent string) string {
	t.Helper()
	h, err := f.store.Resolve(context.Background(), f.idOf(t, parent))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (f *fixture) idOf(t *testing.T, parent string) string {
	return delegate(t, parent, "t").IDs["delegation_id"]
}

// leafOf returns the address of parent as the store keeps it: the prompt a
// delegation of it embeds, found by the SHA-256 of its text.
func (f *fixture) leafOf(t *testing.T, parent string) string {
	t.Helper()
	h, err := f.store.Resolve(context.Background(), audit.Hash(parent))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestKeyMismatch: a store read with another key verifies no row, and a
// key too short to be one is refused before anything is opened.
func TestKeyMismatch(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		f := newFixture(t, b, audit.WithKey(testKey))
		other := readOnly(t, b.target, audit.WithKey([]byte(strings.Repeat("k", audit.MinKeySize))))
		if _, err := other.Get(context.Background(), f.links[top]); !errors.Is(err, audit.ErrIntegrity) || !strings.Contains(err.Error(), "does not verify") {
			t.Errorf("Get with another key: %v", err)
		}
		rep, err := other.Verify(context.Background())
		if err != nil || int64(len(rep.Problems)) != signedRows {
			t.Errorf("Verify with another key: %d problems, want one per row (%d): %v", len(rep.Problems), signedRows, err)
		}
	})
	for _, key := range [][]byte{nil, []byte("short")} {
		_, err := audit.Open(context.Background(), t.TempDir()+"/a.db", audit.WithKey(key))
		var ae *engine.Error
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "at least 32") {
			t.Errorf("a key of %d bytes: %v", len(key), err)
		}
	}
}

// TestSignedUpdate: a prompt first stored as embedded gains the metadata
// of its own record; a store with the key signs the row it then is, and a
// writer without the key leaves it unsigned, which the key then refuses.
func TestSignedUpdate(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		f := newFixture(t, b, audit.WithKey(testKey))
		v := delegation(t)
		mid := delegate(t, f.texts[mid2], "t") // mid1, rendered again: the same prompt
		if h, err := f.store.Record(context.Background(), v, mid); err != nil || h != f.links[mid1] {
			t.Fatalf("record mid1 itself: %.12s %v", h, err)
		}
		keyed := readOnly(t, b.target, audit.WithKey(testKey))
		if e, err := keyed.Get(context.Background(), f.links[mid1]); err != nil || e.Variant != "delegation" || e.IDs["delegation_id"] != mid.IDs["delegation_id"] {
			t.Fatalf("mid1 after its own signed record: %+v %v", e, err)
		}

		plain := open(t, b.target)
		if h, err := plain.Record(context.Background(), v, delegate(t, f.texts[root], "t")); err != nil || h != f.links[mid2] {
			t.Fatalf("record mid2 itself without the key: %.12s %v", h, err)
		}
		_, err := keyed.Get(context.Background(), f.links[mid2])
		var ae *engine.Error
		if !errors.As(err, &ae) || !slices.Contains(errorRows(ae.Also), "prompts hash="+f.links[mid2]) || !strings.Contains(err.Error(), "has no signature") {
			t.Errorf("mid2 after a record without the key, read with it: %v", err)
		}
		if e, err := plain.Get(context.Background(), f.links[mid2]); err != nil || e.Variant != "delegation" {
			t.Errorf("mid2 read without the key: %+v %v", e, err)
		}
	})
}

// TestUpdateRestamps: a row stored as embedded may have been written by
// anyone who can write to the database, with a time of their choosing. A
// writer that records the prompt itself once kept that time and, with the
// key, signed it; it now stamps the row with the time of its own record,
// which is what it signs.
func TestUpdateRestamps(t *testing.T) {
	t.Parallel()
	const planted = "2001-02-03T04:05:06Z"
	eachBackend(t, func(t *testing.T, b backend) {
		f := newFixture(t, b, audit.WithKey(testKey))
		v := delegation(t)
		for _, w := range []struct {
			name  string
			store *audit.Store
			link  int
			text  string // the parent of the prompt at link
			read  *audit.Store
		}{
			{"with the key", f.store, mid1, f.texts[mid2], readOnly(t, b.target, audit.WithKey(testKey))},
			{"without the key", open(t, b.target), mid2, f.texts[root], readOnly(t, b.target)},
		} {
			// The row, as a writer without the key could have left it:
			// unsigned, dated as it liked.
			f.exec(t, `UPDATE prompts SET recorded = ?, signature = '' WHERE hash = ?`, planted, f.links[w.link])
			before := time.Now().UTC().Truncate(time.Second)
			if h, err := w.store.Record(context.Background(), v, delegate(t, w.text, "t")); err != nil || h != f.links[w.link] {
				t.Fatalf("%s: record link %d itself: %.12s %v", w.name, w.link, h, err)
			}
			after := time.Now().UTC()
			// Read as it was written, with the key or without: with it, the
			// row verifies, signed with the time it wrote.
			e, err := w.read.Get(context.Background(), f.links[w.link])
			if err != nil || e.Variant != "delegation" {
				t.Fatalf("%s: link %d after its own record: %+v %v", w.name, w.link, e, err)
			}
			when, err := time.Parse(time.RFC3339, e.Recorded)
			if err != nil || when.Before(before) || when.After(after) {
				t.Errorf("%s: link %d recorded %q (planted %s), want the time of its own record, in [%s, %s]",
					w.name, w.link, e.Recorded, planted, before.Format(time.RFC3339), after.Format(time.RFC3339))
			}
		}
	})
}

// TestEarlierVersionWithKey: a store of an earlier schema, which has no
// signatures, reads without a key as it always did, and with one as what
// it is: unsigned.
func TestEarlierVersionWithKey(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		last := delegate(t, "# Root\n", "t")
		hash := version1(t, b, last)
		if e, err := readOnly(t, b.target).Get(context.Background(), hash); err != nil || e.Text != last.Text {
			t.Fatalf("without a key: %v", err)
		}
		_, err := readOnly(t, b.target, audit.WithKey(testKey)).Get(context.Background(), hash)
		if !errors.Is(err, audit.ErrIntegrity) || !strings.Contains(err.Error(), "has no signature") {
			t.Errorf("with a key: %v", err)
		}
	})
}
