package argon2

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"counsel/domain"

	"github.com/matryer/is"
)

// cheap keeps tests that are not about cost fast.
var cheap = Params{MemoryKiB: 64, Time: 1, Threads: 1}

func TestHashVerify(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		password string
		params   Params
	}{
		{"default parameters", "correct horse battery staple", Params{}},
		{"cheap parameters", "s3cret-pw", cheap},
		{"multibyte password", "pâsswörd-😀-密码", cheap},
		{"128 characters", strings.Repeat("x", 128), cheap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			h := New(Options{Params: tt.params})
			enc, err := h.Hash(ctx, tt.password)
			is.NoErr(err) // hash
			ok, err := h.Verify(ctx, tt.password, enc)
			is.NoErr(err) // verify
			is.True(ok)   // the right password matches
			ok, err = h.Verify(ctx, tt.password+"x", enc)
			is.NoErr(err) // verify
			is.True(!ok)  // a longer password does not
			ok, err = h.Verify(ctx, strings.ToUpper(tt.password), enc)
			is.NoErr(err)                                             // verify
			is.Equal(ok, strings.ToUpper(tt.password) == tt.password) // case matters
			again, err := h.Hash(ctx, tt.password)
			is.NoErr(err)         // hash again
			is.True(again != enc) // a fresh salt each time
		})
	}
}

func TestPHCFormat(t *testing.T) {
	is := is.New(t)
	h := New(Options{})
	enc, err := h.Hash(context.Background(), "password1")
	is.NoErr(err) // hash
	// 16-byte salt and 32-byte key in unpadded standard base64.
	phc := regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)
	is.True(phc.MatchString(enc)) // OWASP minimum parameters in PHC form
}

func TestDeterministicWithSalt(t *testing.T) {
	is := is.New(t)
	salt := bytes.Repeat([]byte{7}, 16)
	a, err := New(Options{Params: cheap, Rand: bytes.NewReader(salt)}).Hash(context.Background(), "password1")
	is.NoErr(err) // hash a
	b, err := New(Options{Params: cheap, Rand: bytes.NewReader(salt)}).Hash(context.Background(), "password1")
	is.NoErr(err)  // hash b
	is.Equal(a, b) // same salt, same hash
	_, err = New(Options{Params: cheap, Rand: bytes.NewReader(nil)}).Hash(context.Background(), "password1")
	is.True(err != nil) // no salt, no hash
}

func TestVerifyUsesTheStoredParameters(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	old, err := New(Options{Params: cheap}).Hash(ctx, "password1")
	is.NoErr(err) // hash with old parameters
	ok, err := New(Options{}).Verify(ctx, "password1", old)
	is.NoErr(err) // verify with a hasher on new parameters
	is.True(ok)   // parameters come from the PHC string
}

func TestVerifyEmptyEncoded(t *testing.T) {
	ctx := context.Background()

	t.Run("false, no error", func(t *testing.T) {
		is := is.New(t)
		h := New(Options{Params: cheap})
		for _, pw := range []string{"", "password1"} {
			ok, err := h.Verify(ctx, pw, "")
			is.NoErr(err) // no error: the caller answers like for a wrong password
			is.True(!ok)  // never matches
		}
		dummyPW, err := h.Verify(ctx, "", h.dummy)
		is.NoErr(err)     // the dummy hash itself
		is.True(!dummyPW) // even the dummy's own input
	})

	t.Run("runs a real hash: it queues for a slot", func(t *testing.T) {
		is := is.New(t)
		h := New(Options{Params: cheap, Concurrency: 1})
		h.slots <- struct{}{} // every slot busy
		defer func() { <-h.slots }()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := h.Verify(cctx, "password1", "")
		is.True(errors.Is(err, context.Canceled)) // it waited for a slot instead of answering at once
	})

	t.Run("costs about what a real verification costs", func(t *testing.T) {
		is := is.New(t)
		h := New(Options{})
		enc, err := h.Hash(ctx, "password1")
		is.NoErr(err) // hash
		best := func(encoded string) time.Duration {
			d := time.Duration(1 << 62)
			for range 3 {
				start := time.Now()
				_, err := h.Verify(ctx, "password2", encoded)
				is.NoErr(err) // verify
				d = min(d, time.Since(start))
			}
			return d
		}
		real, empty := best(enc), best("")
		t.Logf("verify: real hash %v, empty hash %v", real, empty)
		is.True(empty > real/3) // an unknown account is not told apart by a fast answer
	})
}

func TestVerifyRefusesMalformed(t *testing.T) {
	ctx := context.Background()
	salt := "AAAAAAAAAAAAAAAAAAAAAA"
	key := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	tests := []struct {
		name string
		enc  string
	}{
		{"not PHC", "password1"},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"argon2i", "$argon2i$v=19$m=19456,t=2,p=1$" + salt + "$" + key},
		{"argon2d", "$argon2d$v=19$m=19456,t=2,p=1$" + salt + "$" + key},
		{"old version", "$argon2id$v=16$m=19456,t=2,p=1$" + salt + "$" + key},
		{"no version", "$argon2id$m=19456,t=2,p=1$" + salt + "$" + key},
		{"extra field", "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key + "$x"},
		{"memory too large (256 MiB + 1 KiB)", "$argon2id$v=19$m=262145,t=2,p=1$" + salt + "$" + key},
		{"memory 4 GiB", "$argon2id$v=19$m=4194304,t=2,p=1$" + salt + "$" + key},
		{"memory overflows uint32", "$argon2id$v=19$m=4294967296,t=2,p=1$" + salt + "$" + key},
		{"memory zero", "$argon2id$v=19$m=0,t=2,p=1$" + salt + "$" + key},
		{"memory negative", "$argon2id$v=19$m=-1,t=2,p=1$" + salt + "$" + key},
		{"time too large", "$argon2id$v=19$m=19456,t=17,p=1$" + salt + "$" + key},
		{"time huge", "$argon2id$v=19$m=19456,t=4000000000,p=1$" + salt + "$" + key},
		{"time zero", "$argon2id$v=19$m=19456,t=0,p=1$" + salt + "$" + key},
		{"threads zero", "$argon2id$v=19$m=19456,t=2,p=0$" + salt + "$" + key},
		{"threads overflow uint8", "$argon2id$v=19$m=19456,t=2,p=256$" + salt + "$" + key},
		{"parameters reordered", "$argon2id$v=19$t=2,m=19456,p=1$" + salt + "$" + key},
		{"parameters missing", "$argon2id$v=19$m=19456$" + salt + "$" + key},
		{"salt not base64", "$argon2id$v=19$m=19456,t=2,p=1$!!!!$" + key},
		{"key not base64", "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$%%%%"},
		{"key padded", "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key + "="},
		{"key empty", "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$"},
		{"key longer than 128 bytes", "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + strings.Repeat("A", 176)},
	}
	h := New(Options{Params: cheap})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			start := time.Now()
			ok, err := h.Verify(ctx, "password1", tt.enc)
			is.True(err != nil)                                   // refused
			is.True(!ok)                                          // never a match
			is.True(domain.ErrorCode(err) != domain.ERATELIMITED) // a stored-data problem, not load
			is.True(time.Since(start) < time.Second)              // refused before hashing
		})
	}
}

// waitFor spins (without sleeping) until cond holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		runtime.Gosched()
	}
}

func TestConcurrencyBound(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	h := New(Options{Params: cheap, Concurrency: 1, MaxWaiting: 2})
	enc, err := h.Hash(ctx, "password1")
	is.NoErr(err) // hash

	h.slots <- struct{}{} // a hash in progress holds the only slot

	// Two callers queue behind it.
	var wg sync.WaitGroup
	queued := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			ok, err := h.Verify(ctx, "password1", enc)
			if err == nil && !ok {
				err = errors.New("queued verify did not match")
			}
			queued <- err
		})
	}
	waitFor(t, func() bool { return h.waiting.Load() == 2 })

	// A burst beyond the queue is refused at once, Hash and Verify alike.
	const burst = 8
	var limited atomic.Int64
	var burstWG sync.WaitGroup
	for i := range burst {
		burstWG.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = h.Hash(ctx, "password1")
			} else {
				_, err = h.Verify(ctx, "password1", enc)
			}
			var de *domain.Error
			if errors.As(err, &de) && de.Code == domain.ERATELIMITED && de.RetryAfter == time.Second {
				limited.Add(1)
			}
		})
	}
	burstWG.Wait()
	is.Equal(limited.Load(), int64(burst)) // the overflow gets ERATELIMITED with Retry-After 1s
	is.Equal(h.waiting.Load(), int64(2))   // refused callers leave the queue as it was

	<-h.slots // the running hash finishes
	wg.Wait()
	close(queued)
	for err := range queued {
		is.NoErr(err) // queued callers are served in turn
	}
	is.Equal(h.waiting.Load(), int64(0)) // queue drained
	is.Equal(len(h.slots), 0)            // every slot released

	t.Run("a caller that gives up leaves the queue", func(t *testing.T) {
		is := is.New(t)
		h.slots <- struct{}{}
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { _, err := h.Hash(cctx, "password1"); done <- err }()
		waitFor(t, func() bool { return h.waiting.Load() == 1 })
		cancel()
		is.True(errors.Is(<-done, context.Canceled)) // the context's error
		is.Equal(h.waiting.Load(), int64(0))         // no longer counted
		<-h.slots
	})
}

// BenchmarkHash measures one argon2id hash with the default parameters
// (m=19 MiB, t=2, p=1).
func BenchmarkHash(b *testing.B) {
	h := New(Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Hash(ctx, "correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

// peakHeap samples memory while fn runs and returns the highest heap
// object bytes (live and not yet swept) seen above the baseline before fn,
// and the highest memory mapped by the Go runtime in all (absolute: it
// includes what earlier work mapped and has not returned).
func peakHeap(fn func()) (heap, total uint64) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	read := func() (uint64, uint64) {
		metrics.Read(samples)
		return samples[0].Value.Uint64(), samples[1].Value.Uint64()
	}
	runtime.GC()
	baseHeap, _ := read()
	stop := make(chan struct{})
	done := make(chan struct{})
	var peakH, peakT uint64
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			h, t := read()
			peakH, peakT = max(peakH, h), max(peakT, t)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	<-done
	h, t := read()
	peakH, peakT = max(peakH, h), max(peakT, t)
	return peakH - min(peakH, baseHeap), peakT
}

// logins runs n concurrent verifications on h and returns how many were
// refused as rate limited.
func logins(h *Hasher, enc string, n int) (refused int64, err error) {
	var wg sync.WaitGroup
	var limited atomic.Int64
	var failed atomic.Value
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			ok, err := h.Verify(context.Background(), "correct horse battery staple", enc)
			switch {
			case domain.ErrorCode(err) == domain.ERATELIMITED:
				limited.Add(1)
			case err != nil:
				failed.Store(err)
			case !ok:
				failed.Store(errors.New("password did not match"))
			}
		})
	}
	close(start)
	wg.Wait()
	if e, _ := failed.Load().(error); e != nil {
		return limited.Load(), e
	}
	return limited.Load(), nil
}

const mib = 1 << 20

// TestPeakMemory50Logins runs 50 sign-ins at once with the default bound
// (one hash per CPU) and checks that the heap stays near bound × 19 MiB
// instead of 50 × 19 MiB. The figures are logged; see also
// BenchmarkPeakMemory50Logins.
func TestPeakMemory50Logins(t *testing.T) {
	is := is.New(t)
	h := New(Options{})
	enc, err := h.Hash(context.Background(), "correct horse battery staple")
	is.NoErr(err) // hash
	var refused int64
	start := time.Now()
	heap, total := peakHeap(func() { refused, err = logins(h, enc, 50) })
	elapsed := time.Since(start)
	is.NoErr(err)               // every login verified
	is.Equal(refused, int64(0)) // 50 fit in the default queue of 64
	bound := cap(h.slots)
	t.Logf("50 concurrent logins, bound %d (GOMAXPROCS): %v in all, peak heap +%d MiB, runtime memory at most %d MiB",
		bound, elapsed.Round(time.Millisecond), heap/mib, total/mib)
	// Each running hash holds 19 MiB; the garbage collector lets the heap
	// reach about twice the live size before collecting. 50 unbounded
	// hashes would need 950 MiB.
	limit := uint64(2*bound+4) * 19 * mib
	is.True(heap < limit) // memory follows the bound, not the number of logins
}

// BenchmarkPeakMemory50Logins reports the wall time of 50 concurrent
// sign-ins and the peak heap they need, with the default bound and, for
// comparison, with no effective bound (50 at once).
func BenchmarkPeakMemory50Logins(b *testing.B) {
	for _, bc := range []struct {
		name  string
		bound int
	}{{"bound=GOMAXPROCS", 0}, {"bound=50", 50}} {
		b.Run(bc.name, func(b *testing.B) {
			h := New(Options{Concurrency: bc.bound})
			enc, err := h.Hash(context.Background(), "correct horse battery staple")
			if err != nil {
				b.Fatal(err)
			}
			var peakHeapB, peakTotal uint64
			for b.Loop() {
				var refused int64
				heap, total := peakHeap(func() { refused, err = logins(h, enc, 50) })
				if err != nil || refused != 0 {
					b.Fatalf("refused %d, err %v", refused, err)
				}
				peakHeapB, peakTotal = max(peakHeapB, heap), max(peakTotal, total)
			}
			b.ReportMetric(float64(peakHeapB)/mib, "peak-heap-MiB")
			b.ReportMetric(float64(peakTotal)/mib, "peak-runtime-MiB")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/50, "ms/login")
		})
	}
}
