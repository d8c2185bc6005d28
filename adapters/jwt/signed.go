package jwt

import (
	"crypto/sha256"
	"sync"

	"counsel/domain/account"
)

// maxSigned bounds the tokens remembered; when full the memory starts
// over, which costs one signature check per token signed before. A
// refresh, which uses its access token once, takes the entry out, so the
// refresh loop keeps it small.
const maxSigned = 4096

// signedTokens maps the SHA-256 of tokens this Issuer signed to their
// claims. It holds only what Issue signed with this process's key and
// issuer, so an entry is as good as a verified signature; expiry is still
// checked by Verify.
type signedTokens struct {
	mu      sync.Mutex
	entries map[[32]byte]account.AccessClaims
}

func (s *signedTokens) put(tok string, c account.AccessClaims) {
	h := sha256.Sum256([]byte(tok))
	s.mu.Lock()
	if len(s.entries) >= maxSigned {
		clear(s.entries)
	}
	s.entries[h] = c
	s.mu.Unlock()
}

// get returns the claims of a token signed here; take removes the entry.
func (s *signedTokens) get(tok string, take bool) (account.AccessClaims, bool) {
	h := sha256.Sum256([]byte(tok))
	s.mu.Lock()
	c, ok := s.entries[h]
	if ok && take {
		delete(s.entries, h)
	}
	s.mu.Unlock()
	return c, ok
}
