package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/server"
)

// TestReplicas runs several render servers, each with a Store of its own on
// one database, as replicas behind a load balancer would be. Chains of
// delegations share their root and first level; each level of each chain is
// posted twice, to two different replicas, all at once. Afterwards every
// replica's store reconstructs every chain byte for byte, and each prompt is
// stored exactly once.
func TestReplicas(t *testing.T) {
	t.Parallel()
	const replicas, chains, depth = 3, 4, 4
	eachBackend(t, func(t *testing.T, b backend) {
		var urls []string
		var stores []*audit.Store
		for range replicas {
			store := open(t, b.target)
			srv := server.New(lib(t))
			srv.Audit = store
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			urls = append(urls, ts.URL)
			stores = append(stores, store)
		}

		// texts[c][k] is level k of chain c; level 0 is the root and level
		// 1 is the same in every chain.
		task := func(c, k int) string {
			if k == 1 {
				return "shared"
			}
			return fmt.Sprint("chain ", c, " level ", k)
		}
		texts := make([][]string, chains)
		for c := range texts {
			texts[c] = []string{"# Root\n\nYou own the work.\n"}
			for k := 1; k <= depth; k++ {
				texts[c] = append(texts[c], delegate(t, texts[c][k-1], task(c, k)).Text)
			}
		}

		type post struct{ c, k, replica int }
		var posts []post
		for c := range chains {
			for k := 1; k <= depth; k++ {
				posts = append(posts, post{c, k, (c + k) % replicas}, post{c, k, (c + k + 1) % replicas})
			}
		}
		ids := make([]string, len(posts))
		var wg sync.WaitGroup
		errs := make([]error, len(posts))
		for i, p := range posts {
			wg.Go(func() {
				body := delegationInput(texts[p.c][p.k-1], task(p.c, p.k))
				resp, err := http.Post(urls[p.replica]+"/v1/render/delegation", "application/json", bytes.NewReader(body))
				if err != nil {
					errs[i] = err
					return
				}
				defer resp.Body.Close()
				data, _ := io.ReadAll(resp.Body)
				var res struct {
					Text string
					IDs  map[string]string
				}
				if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &res) != nil || res.Text != texts[p.c][p.k] {
					errs[i] = fmt.Errorf("replica %d, chain %d level %d: %s %.300s", p.replica, p.c, p.k, resp.Status, data)
					return
				}
				ids[i] = res.IDs["delegation_id"]
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		lastIDs := make([]string, chains)
		for i, p := range posts {
			if p.k == depth {
				lastIDs[p.c] = ids[i] // both posts of a level give the same id
			}
		}

		for r, store := range stores {
			for c := range chains {
				hash, err := store.Resolve(context.Background(), lastIDs[c])
				if err != nil {
					t.Fatalf("replica %d: %v", r, err)
				}
				links, err := store.Chain(context.Background(), hash)
				if err != nil {
					t.Fatalf("replica %d: %v", r, err)
				}
				var got []string
				for _, l := range links {
					got = append(got, l.Text)
					if l.Variant != "delegation" && l.Text != texts[c][0] {
						t.Errorf("replica %d, chain %d: a recorded level has no variant: %s", r, c, l.Hash)
					}
				}
				slices.Reverse(got)
				if !slices.Equal(got, texts[c]) {
					t.Errorf("replica %d: chain %d does not read back as rendered", r, c)
				}
			}
		}

		// The root, the shared first level, and depth-1 levels per chain:
		// each once, with its parts, its delegation_id and its provenance.
		levels := 1 + chains*(depth-1)
		db := b.db(t)
		for query, want := range map[string]int{
			`SELECT count(*) FROM prompts`:                                                             1 + levels,
			`SELECT count(*) FROM prompts WHERE variant = 'delegation'`:                                levels,
			`SELECT count(*) FROM prompts WHERE library_short <> ''`:                                   levels,
			`SELECT count(*) FROM parts`:                                                               1 + 2*levels,
			`SELECT count(*) FROM ids`:                                                                 levels,
			`SELECT count(DISTINCT hash) FROM parts`:                                                   1 + levels,
			`SELECT count(*) FROM parts WHERE child <> '' AND child NOT IN (SELECT hash FROM prompts)`: 0,
		} {
			if n := count(t, db, query); n != want {
				t.Errorf("%s: %d, want %d", query, n, want)
			}
		}
	})
}
