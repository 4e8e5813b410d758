package audit_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// rootSecret is a line of the root prompt that no error may print.
const rootSecret = "ROOT-SECRET-7Q3X"

// fixture is a store holding a chain of three delegations, recorded from
// its last level, and another prompt of a chain of its own.
type fixture struct {
	b     backend
	store *audit.Store
	db    *sql.DB // the database itself, writable, behind the store's back
	last  *engine.Result
	texts []string // the text of each link: top, mid1, mid2, root
	links []string // the address of each link, as texts
	other string   // the address of the other prompt
}

const (
	top = iota
	mid1
	mid2
	root
)

func newFixture(t *testing.T, b backend, opts ...audit.Option) *fixture {
	t.Helper()
	f := &fixture{b: b, store: open(t, b.target, opts...), db: writable(t, b)}
	prompts, last := chain(t, "# Root\n\nYou own the work: "+rootSecret+"\n", 3, "t")
	f.last = last
	hash := recordDelegation(t, f.store, last)
	links, err := f.store.Links(context.Background(), hash)
	if err != nil || len(links) != 4 {
		t.Fatalf("%d links, %v", len(links), err)
	}
	for i, l := range links {
		f.links = append(f.links, l.Hash)
		f.texts = append(f.texts, prompts[3-i])
	}
	f.other = recordDelegation(t, f.store, delegate(t, "# Other\n", "t"))
	return f
}

// exec runs a statement with ? placeholders on the database behind the
// store's back, and fails the test unless it changes a row.
func (f *fixture) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if f.b.name == "postgres" {
		var b strings.Builder
		n := 0
		for _, c := range query {
			if c == '?' {
				n++
				b.WriteString("$" + strconv.Itoa(n))
				continue
			}
			b.WriteRune(c)
		}
		query = b.String()
	}
	res, err := f.db.Exec(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		t.Fatalf("%s changed no row (%v)", query, err)
	}
}

// flip changes one byte of part seq of the prompt at hash.
func (f *fixture) flip(t *testing.T, hash string, seq int) {
	t.Helper()
	q := `SELECT bytes FROM parts WHERE hash = ? AND seq = ?`
	if f.b.name == "postgres" {
		q = `SELECT bytes FROM parts WHERE hash = $1 AND seq = $2`
	}
	var b []byte
	if err := f.db.QueryRow(q, hash, seq).Scan(&b); err != nil || len(b) == 0 {
		t.Fatalf("part %d of %s: %d bytes, %v", seq, hash, len(b), err)
	}
	b[len(b)/2] ^= 0x01
	f.exec(t, `UPDATE parts SET bytes = ? WHERE hash = ? AND seq = ?`, b, hash, seq)
}

// rows returns each problem as its table and row, as Problem.String starts.
func rows(ps []audit.Problem) []string {
	var out []string
	for _, p := range ps {
		s := p.String()
		out = append(out, s[:strings.Index(s, ": ")])
	}
	slices.Sort(out)
	return out
}

// errorRows names the rows an integrity error lists, as rows does.
func errorRows(also []*engine.Error) []string {
	var out []string
	for _, e := range also {
		out = append(out, e.Path+" "+e.Key)
	}
	slices.Sort(out)
	return out
}

// leaks reports whether msg holds a line of a prompt's text.
func leaks(msg string, texts ...string) bool {
	for _, text := range texts {
		for line := range strings.Lines(text) {
			if line = strings.TrimSpace(line); len(line) >= 12 && strings.Contains(msg, line) {
				return true
			}
		}
	}
	return strings.Contains(msg, rootSecret)
}

// refused checks that every read of the prompt at hash fails verification,
// naming only rows among want, and prints no prompt's bytes.
func (f *fixture) refused(t *testing.T, s *audit.Store, hash string, want []string) {
	t.Helper()
	reads := map[string]func() error{
		"Get":   func() error { _, err := s.Get(context.Background(), hash); return err },
		"Chain": func() error { _, err := s.Chain(context.Background(), hash); return err },
		"Links": func() error { _, err := s.Links(context.Background(), hash); return err },
	}
	for _, name := range []string{"Get", "Chain", "Links"} {
		err := reads[name]()
		var ae *engine.Error
		if !errors.Is(err, audit.ErrIntegrity) || !errors.As(err, &ae) || ae.Kind != engine.KindIntegrity || len(ae.Also) == 0 {
			t.Errorf("%s(%.12s): %v, want it to fail verification", name, hash, err)
			continue
		}
		for _, row := range errorRows(ae.Also) {
			if !slices.Contains(want, row) {
				t.Errorf("%s(%.12s) names %s, want one of %v", name, hash, row, want)
			}
		}
		if !strings.Contains(err.Error(), errorRows(ae.Also[:1])[0]) {
			t.Errorf("%s(%.12s): the error does not name the row: %v", name, hash, err)
		}
		if leaks(err.Error(), f.texts...) {
			t.Errorf("%s(%.12s): the error prints the prompt's bytes: %v", name, hash, err)
		}
	}
}

// served checks that the prompt at hash still reads back as recorded.
func (f *fixture) served(t *testing.T, s *audit.Store, link int) {
	t.Helper()
	e, err := s.Get(context.Background(), f.links[link])
	if err != nil || e.Text != f.texts[link] {
		t.Errorf("link %d, untouched, no longer reads back: %v", link, err)
	}
	if _, err := s.Links(context.Background(), f.links[link]); err != nil {
		t.Errorf("Links of link %d, untouched: %v", link, err)
	}
}

// keysOf returns the keys a prompt can be looked up by: its address, and
// the SHA-256 of its text when its row keeps it, and its delegation_id.
func (f *fixture) keysOf(link int) []string {
	keys := []string{f.links[link]}
	if link == top || link == root { // recorded itself, or embedding nothing
		keys = append(keys, audit.Hash(f.texts[link]))
	}
	if link == top {
		keys = append(keys, f.last.IDs["delegation_id"])
	}
	return keys
}

// TestTampering alters the database behind the store's back, one way per
// case, on SQLite and PostgreSQL. Every read of a prompt whose text or
// metadata the change reaches fails, by whatever key it is looked up
// (its address, its original SHA-256, its delegation_id), naming the row
// and never printing the bytes; the prompts it does not reach still read
// back; Verify reports exactly the rows altered.
func TestTampering(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tamper func(t *testing.T, f *fixture)
		want   func(f *fixture) []string // the rows Verify names
		// refused lists the links that no longer read; the others do.
		refused []int
		// gone lists the links that are no longer found at all.
		gone []int
		// key opens the stores with the audit key, so that signatures are
		// checked too.
		key bool
		// reason, when set, is what Verify and the reads of the refused
		// links say of the row altered.
		reason string
	}{{
		name:    "one byte of a prompt that embeds nothing",
		tamper:  func(t *testing.T, f *fixture) { f.flip(t, f.links[root], 0) },
		want:    func(f *fixture) []string { return []string{"parts hash=" + f.links[root]} },
		refused: []int{top, mid1, mid2, root},
	}, {
		name:    "one byte of the recorded prompt's own text",
		tamper:  func(t *testing.T, f *fixture) { f.flip(t, f.links[top], 0) },
		want:    func(f *fixture) []string { return []string{"parts hash=" + f.links[top]} },
		refused: []int{top},
	}, {
		name:    "one byte of a prompt in the middle of the chain",
		tamper:  func(t *testing.T, f *fixture) { f.flip(t, f.links[mid1], 1) },
		want:    func(f *fixture) []string { return []string{"parts hash=" + f.links[mid1]} },
		refused: []int{top, mid1},
	}, {
		name: "a child pointer redirected to another stored prompt",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE parts SET child = ? WHERE hash = ? AND seq = 0`, f.other, f.links[top])
		},
		want:    func(f *fixture) []string { return []string{"parts hash=" + f.links[top]} },
		refused: []int{top},
	}, {
		name: "an embedded prompt's row given another prompt's parts",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `DELETE FROM parts WHERE hash = ?`, f.links[mid1])
			f.exec(t, `INSERT INTO parts(hash, seq, bytes, child, region) SELECT CAST(? AS TEXT), seq, bytes, child, region FROM parts WHERE hash = ?`,
				f.links[mid1], f.other)
		},
		want:    func(f *fixture) []string { return []string{"parts hash=" + f.links[mid1]} },
		refused: []int{top, mid1},
	}, {
		name: "the SHA-256 column",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE prompts SET sha256 = ? WHERE hash = ?`, audit.Hash("forged"), f.links[top])
		},
		want:    func(f *fixture) []string { return []string{"prompts hash=" + f.links[top]} },
		refused: []int{top},
	}, {
		name: "the SHA-256 column of a prompt that embeds nothing",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE prompts SET sha256 = ? WHERE hash = ?`, audit.Hash("forged"), f.links[root])
		},
		want:    func(f *fixture) []string { return []string{"prompts hash=" + f.links[root]} },
		refused: []int{top, mid1, mid2, root},
	}, {
		name: "the size column",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE prompts SET size = size + 1 WHERE hash = ?`, f.links[root])
		},
		// The prompt that embeds it no longer adds up either.
		want: func(f *fixture) []string {
			return []string{"prompts hash=" + f.links[mid2], "prompts hash=" + f.links[root]}
		},
		refused: []int{top, mid1, mid2, root},
	}, {
		name: "a part removed",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `DELETE FROM parts WHERE hash = ? AND seq = 1`, f.links[top])
		},
		want:    func(f *fixture) []string { return []string{"parts hash=" + f.links[top] + " seq=0"} },
		refused: []int{top},
	}, {
		name:   "an embedded prompt's row removed",
		tamper: func(t *testing.T, f *fixture) { f.exec(t, `DELETE FROM prompts WHERE hash = ?`, f.links[root]) },
		want: func(f *fixture) []string {
			return []string{"parts hash=" + f.links[mid2] + " seq=0", "parts hash=" + f.links[root]}
		},
		refused: []int{top, mid1, mid2},
		gone:    []int{root},
	}, {
		name: "an id pointing at no prompt",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `INSERT INTO ids(name, value, hash) VALUES('delegation_id', 'dlg-nothing', ?)`, strings.Repeat("0", 64))
		},
		want: func(f *fixture) []string {
			return []string{"ids name=delegation_id value=dlg-nothing hash=" + strings.Repeat("0", 64)}
		},
	}, {
		// The budget column was once decoded as it was read, before
		// anything was verified: Verify failed with no report, and reads
		// said the store was unavailable.
		name: "the budget column, not JSON",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE prompts SET budget = '{not json' WHERE hash = ?`, f.links[mid1])
		},
		want:    func(f *fixture) []string { return []string{"prompts hash=" + f.links[mid1]} },
		refused: []int{top, mid1},
		reason:  "budget is not a budget report",
	}, {
		name: "the budget column, not JSON, in a signed store",
		tamper: func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE prompts SET budget = '{not json' WHERE hash = ?`, f.links[mid1])
		},
		// Not a budget report, and the signature no longer verifies.
		want: func(f *fixture) []string {
			return []string{"prompts hash=" + f.links[mid1], "prompts hash=" + f.links[mid1]}
		},
		refused: []int{top, mid1},
		key:     true,
		reason:  "budget is not a budget report",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, b backend) {
				var opts []audit.Option
				if tc.key {
					opts = append(opts, audit.WithKey(testKey))
				}
				f := newFixture(t, b, opts...)
				tc.tamper(t, f)
				want := tc.want(f)
				slices.Sort(want) // as rows does: which hash sorts first depends on the prompts' words
				for _, s := range []*audit.Store{f.store, readOnly(t, b.target, opts...)} {
					for link := range f.links {
						switch {
						case slices.Contains(tc.gone, link):
							if _, err := s.Get(context.Background(), f.links[link]); !errors.Is(err, audit.ErrNotFound) {
								t.Errorf("link %d, removed: %v", link, err)
							}
						case slices.Contains(tc.refused, link):
							for _, key := range f.keysOf(link) {
								hash, err := s.Resolve(context.Background(), key)
								if errors.Is(err, audit.ErrNotFound) {
									continue // the key was altered: not found is not served
								}
								if err != nil || hash != f.links[link] {
									t.Errorf("Resolve(%s) = %.12s, %v", key, hash, err)
									continue
								}
								f.refused(t, s, hash, want)
								if _, err := s.Get(context.Background(), hash); tc.reason != "" && (err == nil || !strings.Contains(err.Error(), tc.reason)) {
									t.Errorf("Get(%.12s): %v, want %q", hash, err, tc.reason)
								}
							}
						default:
							f.served(t, s, link)
						}
					}
				}
				rep, err := f.store.Verify(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if got := rows(rep.Problems); !slices.Equal(got, want) {
					t.Errorf("Verify names\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				for _, p := range rep.Problems {
					if leaks(p.String(), f.texts...) {
						t.Errorf("Verify prints the prompt's bytes: %s", p)
					}
				}
				if tc.reason != "" && !slices.ContainsFunc(rep.Problems, func(p audit.Problem) bool { return p.Reason == tc.reason }) {
					t.Errorf("Verify: %v, want a problem %q", rep.Problems, tc.reason)
				}
			})
		})
	}
}

// TestVerifyReportsEveryProblem: a byte changed in one prompt and a child
// pointer redirected in another are both reported, one problem each, in
// the order of their addresses; a store that was not altered verifies,
// with every row counted.
func TestVerifyReportsEveryProblem(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		f := newFixture(t, b)
		space, fitted := crowded(t, 1000) // a budget, kept in the row
		if _, err := f.store.Record(context.Background(), space, fitted); err != nil {
			t.Fatal(err)
		}
		rep, err := f.store.Verify(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		wantCounts := [3]int64{
			int64(count(t, f.db, `SELECT count(*) FROM prompts`)),
			int64(count(t, f.db, `SELECT count(*) FROM parts`)),
			int64(count(t, f.db, `SELECT count(*) FROM ids`)),
		}
		if len(rep.Problems) != 0 || [3]int64{rep.Prompts, rep.Parts, rep.IDs} != wantCounts || rep.Signatures || rep.Signed != 0 {
			t.Fatalf("a store nobody altered: %+v, want counts %v", rep, wantCounts)
		}

		f.flip(t, f.links[root], 0)
		f.exec(t, `UPDATE parts SET child = ? WHERE hash = ? AND seq = 0`, f.other, f.links[mid1])
		rep, err = f.store.Verify(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"parts hash=" + f.links[mid1], "parts hash=" + f.links[root]}
		slices.Sort(want)
		var got []string
		for _, p := range rep.Problems {
			got = append(got, p.String())
		}
		if len(got) != 2 || !strings.HasPrefix(got[0], want[0]+": ") || !strings.HasPrefix(got[1], want[1]+": ") {
			t.Fatalf("Verify:\n%s\nwant the rows\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if [3]int64{rep.Prompts, rep.Parts, rep.IDs} != wantCounts {
			t.Errorf("counts %d %d %d, want %v", rep.Prompts, rep.Parts, rep.IDs, wantCounts)
		}
	})
}

// TestProblemString: what a row holds is printed plainly only when it is a
// plain word; anything else is quoted and cut short, so that a row cannot
// write lines or escapes of its own into a report.
func TestProblemString(t *testing.T) {
	t.Parallel()
	seq := 2
	h := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		p    audit.Problem
		want string
	}{
		{audit.Problem{Table: "parts", Hash: h, Seq: &seq, Reason: "r"}, "parts hash=" + h + " seq=2: r"},
		{audit.Problem{Table: "prompts", Hash: "x\ny", Reason: "r"}, `prompts hash="x\ny": r`},
		{audit.Problem{Table: "ids", Hash: h, Name: "delegation_id", Value: "dlg-1", Reason: "r"}, "ids name=delegation_id value=dlg-1 hash=" + h + ": r"},
		{audit.Problem{Table: "ids", Hash: h, Name: "n", Value: "\x1b[2J" + strings.Repeat("v", 100), Reason: "r"},
			`ids name=n value="\x1b[2J` + strings.Repeat("v", 60) + `"… hash=` + h + ": r"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if got := fmt.Sprint(audit.Problem{Table: "ids", Reason: "r"}); !strings.Contains(got, `hash="": r`) {
		t.Errorf("an empty value: %s", got)
	}
}
