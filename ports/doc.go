// Package ports declares the interfaces Counsel's use cases need from the
// outside world (stores, token issuer, password hasher, OTP, signing and
// identity providers, clock, blob storage) and the services the HTTP
// adapter calls. Each method documents the domain error codes it returns.
package ports
