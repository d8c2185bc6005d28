// Package argon2 hashes passwords with argon2id (golang.org/x/crypto) in
// PHC string form, and bounds how many hashes run at once: each one holds
// 19 MiB, so an unbounded login flood would exhaust memory.
package argon2

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"counsel/domain"
	"counsel/ports"

	xargon2 "golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// DefaultParams are OWASP's minimum for argon2id: m=19 MiB, t=2, p=1.
var DefaultParams = Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

// Options configure a Hasher. Zero values take defaults.
type Options struct {
	Params Params
	// Concurrency is how many hashes run at once (default GOMAXPROCS).
	Concurrency int
	// MaxWaiting is how many callers may queue for a slot before further
	// ones get ERATELIMITED (default 64).
	MaxWaiting int
	// Rand is the salt source (default crypto/rand).
	Rand io.Reader
}

// Hasher implements ports.PasswordHasher.
type Hasher struct {
	params  Params
	slots   chan struct{}
	waiting atomic.Int64
	maxWait int64
	rand    io.Reader
	dummy   string
}

var _ ports.PasswordHasher = (*Hasher)(nil)

// New returns a Hasher.
func New(o Options) *Hasher {
	if o.Params == (Params{}) {
		o.Params = DefaultParams
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.MaxWaiting <= 0 {
		o.MaxWaiting = 64
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	h := &Hasher{params: o.Params, slots: make(chan struct{}, o.Concurrency), maxWait: int64(o.MaxWaiting), rand: o.Rand}
	// A fixed hash with the same parameters: verifying against it costs
	// what a real verification costs.
	h.dummy = encode(o.Params, make([]byte, 16), make([]byte, 32))
	return h
}

const keyLen = 32

func encode(p Params, salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", xargon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// decode parses a PHC string, refusing parameters far beyond ours so a
// tampered row cannot make one check allocate gigabytes.
func decode(s string) (Params, []byte, []byte, error) {
	var p Params
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, nil, nil, fmt.Errorf("argon2: not an argon2id PHC string")
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != xargon2.Version {
		return p, nil, nil, fmt.Errorf("argon2: unsupported version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, fmt.Errorf("argon2: bad parameters: %w", err)
	}
	if p.MemoryKiB == 0 || p.MemoryKiB > 256*1024 || p.Time == 0 || p.Time > 16 || p.Threads == 0 {
		return p, nil, nil, fmt.Errorf("argon2: parameters out of range")
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return p, nil, nil, fmt.Errorf("argon2: bad salt: %w", err)
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) == 0 || len(key) > 128 {
		return p, nil, nil, fmt.Errorf("argon2: bad hash")
	}
	return p, salt, key, nil
}

// acquire waits for a hashing slot, refusing when the queue is full.
func (h *Hasher) acquire(ctx context.Context) (func(), error) {
	if h.waiting.Add(1) > h.maxWait {
		h.waiting.Add(-1)
		return nil, &domain.Error{Code: domain.ERATELIMITED, Message: "too many sign-ins at once; try again shortly", RetryAfter: time.Second}
	}
	defer h.waiting.Add(-1)
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Hash implements ports.PasswordHasher.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := io.ReadFull(h.rand, salt); err != nil {
		return "", fmt.Errorf("argon2: salt: %w", err)
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	p := h.params
	key := xargon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	return encode(p, salt, key), nil
}

// Verify implements ports.PasswordHasher.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	real := encoded != ""
	if !real {
		encoded = h.dummy
	}
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, err
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	got := xargon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1 && real, nil
}
