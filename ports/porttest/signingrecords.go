package porttest

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

// SigningRecordsSuite holds a contract store to what it keeps of a
// signing provider's records: template digests and sealed signer links.
func SigningRecordsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	c := s.Contracts

	t.Run("template digests", func(t *testing.T) {
		is := is.New(t)
		d, err := c.TemplateDigest(ctx, "1001")
		is.NoErr(err)   // none recorded is no error
		is.Equal(d, "") // and empty
		is.NoErr(c.SetTemplateDigest(ctx, "1001", "aaa"))
		is.NoErr(c.SetTemplateDigest(ctx, "1002", "bbb"))
		d, err = c.TemplateDigest(ctx, "1001")
		is.NoErr(err)
		is.Equal(d, "aaa") // recorded
		is.NoErr(c.SetTemplateDigest(ctx, "1001", "ccc"))
		d, _ = c.TemplateDigest(ctx, "1001")
		is.Equal(d, "ccc") // replaced
		d, _ = c.TemplateDigest(ctx, "1002")
		is.Equal(d, "bbb") // the other one kept
	})

	t.Run("signer links", func(t *testing.T) {
		is := is.New(t)
		got, err := c.SignerLinks(ctx, "5001")
		is.NoErr(err)         // none recorded is no error
		is.Equal(len(got), 0) // and empty
		is.NoErr(c.SaveSignerLinks(ctx, "5001", map[string][]byte{"9001": {1, 2, 3}, "9002": {0, 255}}))
		is.NoErr(c.SaveSignerLinks(ctx, "5002", map[string][]byte{"9003": {7}}))
		got, err = c.SignerLinks(ctx, "5001")
		is.NoErr(err)
		is.Equal(got, map[string][]byte{"9001": {1, 2, 3}, "9002": {0, 255}}) // byte for byte
		is.NoErr(c.SaveSignerLinks(ctx, "5001", map[string][]byte{"9001": {4}}))
		got, _ = c.SignerLinks(ctx, "5001")
		is.Equal(got, map[string][]byte{"9001": {4}, "9002": {0, 255}}) // one replaced, the other kept
		got, _ = c.SignerLinks(ctx, "5002")
		is.Equal(got, map[string][]byte{"9003": {7}}) // per submission
	})
}
