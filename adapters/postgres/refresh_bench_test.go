package postgres

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"testing"
	"time"

	"counsel/adapters/postgres/pgtest"
	"counsel/domain/account"
)

// BenchmarkRefresh rotates the tokens of c sessions, each in a loop of
// its own, as c clients refreshing at once would.
func BenchmarkRefresh(b *testing.B) {
	pgtest.Skip(b)
	for _, c := range []int{1, 2, 16} {
		b.Run(fmt.Sprint("clients=", c), func(b *testing.B) {
			ctx := context.Background()
			db := openDB(b)
			s := NewAccountStore(db)
			if _, err := s.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
				b.Fatal(err)
			}
			tokens := make([][]byte, c)
			for i := range tokens {
				tokens[i] = []byte(rand.Text())
				ss := account.Session{ID: fmt.Sprint("s", i), UserID: 1, Method: account.MethodIdP, CreatedAt: db.Now(), ExpiresAt: db.Now().Add(time.Hour)}
				if err := s.CreateSession(ctx, ss, tokens[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			var wg sync.WaitGroup
			for i := range c {
				wg.Go(func() {
					for n := i; n < b.N; n += c {
						next := []byte(rand.Text())
						err := s.Refresh(ctx, tokens[i], func(st *account.RefreshState) error {
							st.NewTokenHash = next
							return nil
						})
						if err != nil {
							b.Error(err)
							return
						}
						tokens[i] = next
					}
				})
			}
			wg.Wait()
		})
	}
}
