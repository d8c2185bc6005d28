package webhookhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"counsel/adapters/webhookhttp"
	"counsel/domain"
	"counsel/domain/webhook"
)

// receiver records what it was sent and answers with status.
type receiver struct {
	hits    atomic.Int64
	status  int
	delay   time.Duration
	body    []byte
	headers http.Header
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.hits.Add(1)
	rc.body, _ = io.ReadAll(r.Body)
	rc.headers = r.Header.Clone()
	if rc.delay > 0 {
		time.Sleep(rc.delay)
	}
	w.WriteHeader(rc.status)
}

func delivery(t *testing.T, url string, secrets ...string) webhookhttp.Delivery {
	t.Helper()
	var keys [][]byte
	for _, s := range secrets {
		k, err := webhook.SecretKey(s)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	body := []byte(`{"type":"contract.created","timestamp":"2026-11-21T09:30:00Z","data":{"id":7}}`)
	ts := time.Now().Unix()
	return webhookhttp.Delivery{URL: url, ID: "evt_01", Timestamp: ts, Body: body, Signature: webhook.Sign(keys, "evt_01", ts, body)}
}

// TestSendVerifiesWithStandardWebhooks: the receiver checks the delivery
// with the Standard Webhooks reference library, with either secret while
// a rotation's old one still signs.
func TestSendVerifiesWithStandardWebhooks(t *testing.T) {
	is := is.New(t)
	rc := &receiver{status: 204}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	s := webhookhttp.New(webhookhttp.Options{AllowPrivate: true})
	oldSecret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	newSecret, err := webhook.NewSecret(strings.NewReader(strings.Repeat("k", 32)))
	is.NoErr(err)
	res := s.Send(context.Background(), delivery(t, srv.URL+"/hook?token=abc", newSecret, oldSecret))
	is.NoErr(res.Err)
	is.Equal(res.Status, 204)
	is.True(res.Duration > 0)
	is.Equal(rc.headers.Get("Content-Type"), "application/json")
	is.Equal(rc.headers.Get("webhook-id"), "evt_01")
	is.Equal(len(strings.Split(rc.headers.Get("webhook-signature"), " ")), 2)
	for _, secret := range []string{newSecret, oldSecret} {
		wh, err := standardwebhooks.NewWebhook(secret)
		is.NoErr(err)
		is.NoErr(wh.Verify(rc.body, rc.headers)) // the reference implementation agrees
	}
	wh, err := standardwebhooks.NewWebhook("whsec_" + strings.Repeat("A", 44))
	is.NoErr(err)
	is.True(wh.Verify(rc.body, rc.headers) != nil) // and refuses another secret
}

func TestSendOutcomes(t *testing.T) {
	ctx := context.Background()
	t.Run("a refused address is never connected to, also through a name", func(t *testing.T) {
		is := is.New(t)
		rc := &receiver{status: 200}
		srv := httptest.NewServer(rc)
		defer srv.Close()
		s := webhookhttp.New(webhookhttp.Options{})
		res := s.Send(ctx, delivery(t, srv.URL, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
		is.True(errors.Is(res.Err, webhookhttp.ErrRefusedAddress))
		is.Equal(res.Status, 0)
		byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
		res = s.Send(ctx, delivery(t, byName, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
		is.True(errors.Is(res.Err, webhookhttp.ErrRefusedAddress)) // checked after resolution
		is.Equal(rc.hits.Load(), int64(0))
	})
	t.Run("a redirect is not followed", func(t *testing.T) {
		is := is.New(t)
		target := &receiver{status: 200}
		tsrv := httptest.NewServer(target)
		defer tsrv.Close()
		srv := httptest.NewServer(http.RedirectHandler(tsrv.URL, http.StatusFound))
		defer srv.Close()
		res := webhookhttp.New(webhookhttp.Options{AllowPrivate: true}).Send(ctx, delivery(t, srv.URL, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
		is.Equal(res.Status, http.StatusFound)
		is.True(res.Err != nil) // a 3xx is no success
		is.Equal(target.hits.Load(), int64(0))
	})
	t.Run("a 500 and a slow answer fail", func(t *testing.T) {
		is := is.New(t)
		rc := &receiver{status: 500}
		srv := httptest.NewServer(rc)
		defer srv.Close()
		s := webhookhttp.New(webhookhttp.Options{AllowPrivate: true, Timeout: 300 * time.Millisecond})
		res := s.Send(ctx, delivery(t, srv.URL, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
		is.Equal(res.Status, 500)
		is.True(res.Err != nil && strings.Contains(res.Err.Error(), "500"))
		rc.status, rc.delay = 200, time.Second
		res = s.Send(ctx, delivery(t, srv.URL+"/?secret=tok", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
		is.Equal(res.Status, 0)
		is.True(res.Err != nil && strings.Contains(res.Err.Error(), "timeout"))
		is.True(!strings.Contains(res.Err.Error(), "tok")) // the URL stays out of the error
		is.True(res.Duration < 900*time.Millisecond)
	})
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	strict := webhookhttp.New(webhookhttp.Options{})
	loose := webhookhttp.New(webhookhttp.Options{AllowPrivate: true})
	for _, c := range []struct {
		url           string
		strict, loose bool
	}{
		{"https://93.184.216.34/hook", true, true},
		{"http://127.0.0.1:8080/hook", false, true},
		{"http://localhost:8080/hook", false, true}, // resolves to loopback
		{"http://[fd00::1]/", false, true},
		{"ftp://93.184.216.34/", false, false},
		{"https://u:p@93.184.216.34/", false, false},
		{"https://no-such-host.invalid/", false, true},
	} {
		for _, v := range []struct {
			s  *webhookhttp.Sender
			ok bool
		}{{strict, c.strict}, {loose, c.loose}} {
			err := v.s.CheckURL(ctx, c.url)
			if (err == nil) != v.ok {
				t.Errorf("CheckURL(%s) = %v, want ok %v", c.url, err, v.ok)
			}
			if err != nil && domain.ErrorCode(err) != domain.EINVALID {
				t.Errorf("CheckURL(%s): %v, want EINVALID", c.url, err)
			}
		}
	}
}
