package embeddedsign_test

import (
	"path"
	"testing"

	"counsel/domain/signing"
	"counsel/ports"
)

// BenchmarkPage reads an opened signer's page (a read and a form token).
func BenchmarkPage(b *testing.B) {
	h := newHarness(b)
	tpl := h.template(b)
	s := h.submission(b, twoSigners(tpl.ID, signing.OrderRandom))
	slug := path.Base(s.Submitters[0].EmbedSrc)
	if _, err := h.p.Page(ctx, slug); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.p.Page(ctx, slug); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListSubmissions lists a template's 50 submissions of two
// signers each (two queries in one read transaction).
func BenchmarkListSubmissions(b *testing.B) {
	h := newHarness(b)
	tpl := h.template(b)
	for range 50 {
		h.submission(b, twoSigners(tpl.ID, signing.OrderRandom))
	}
	b.ResetTimer()
	for b.Loop() {
		list, err := h.p.ListSubmissions(ctx, tpl.ID)
		if err != nil || len(list) != 50 {
			b.Fatal(len(list), err)
		}
	}
}

// BenchmarkSign creates a one-signer submission, opens its page and signs
// it: three write transactions and the reads between them.
func BenchmarkSign(b *testing.B) {
	h := newHarness(b)
	tpl := h.template(b)
	in := twoSigners(tpl.ID, signing.OrderRandom)
	in.Submitters = in.Submitters[:1]
	b.ResetTimer()
	for b.Loop() {
		s := h.submission(b, in)
		slug := path.Base(s.Submitters[0].EmbedSrc)
		page, err := h.p.Page(ctx, slug)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.p.Sign(ctx, slug, ports.SignInput{FormToken: page.FormToken, Name: "Casey", Consent: true}); err != nil {
			b.Fatal(err)
		}
	}
}
