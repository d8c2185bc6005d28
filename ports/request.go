package ports

import "context"

// Request is what a change records of the request that made it: the
// client's address (X-Forwarded-For believed only from trusted proxies),
// its user agent and the request id (docs/decisions.md §18). Zero for a
// change made outside a request (the command line, background jobs).
type Request struct {
	IP        string
	UserAgent string
	RequestID string
}

// RequestSource yields the Request of the current request; a driving
// adapter puts one in the context (it may compute the fields lazily, so
// requests that record nothing pay nothing).
type RequestSource interface{ Request() Request }

type requestKey struct{}

// WithRequest returns ctx carrying src.
func WithRequest(ctx context.Context, src RequestSource) context.Context {
	return context.WithValue(ctx, requestKey{}, src)
}

// RequestSourceOf returns the RequestSource ctx carries, or nil.
func RequestSourceOf(ctx context.Context) RequestSource {
	src, _ := ctx.Value(requestKey{}).(RequestSource)
	return src
}

// RequestOf returns the Request of ctx; zero outside a request.
func RequestOf(ctx context.Context) Request {
	if src := RequestSourceOf(ctx); src != nil {
		return src.Request()
	}
	return Request{}
}
