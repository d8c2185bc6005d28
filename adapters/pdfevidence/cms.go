package pdfevidence

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/asn1"
	"math/big"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Object identifiers of the CMS checks (RFC 5652, RFC 5035).
var (
	oidSignedData     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidData           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	oidContentType    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidMessageDigest  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	oidSHA256         = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidECDSAWithSHA   = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
	oidECPublicKey    = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidRSAEncryption  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}
	oidSHA256WithRSA  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}
	tagContext0Constr = cbasn1.Tag(0).Constructed().ContextSpecific()
	tagContext1Constr = cbasn1.Tag(1).Constructed().ContextSpecific()
	tagContext0Prim   = cbasn1.Tag(0).ContextSpecific()
)

// cmsVerdict is the outcome of checking a CMS signature: "" when it
// holds, otherwise the reason it does not.
type cmsVerdict string

// checkCMS checks der, the DER of a CMS ContentInfo, as the detached
// signature of bytes whose SHA-256 is digest, made with cert. Every
// check is made here, on the DER itself, so no library's idea of what
// "verifies" is trusted: a SignedData with no encapsulated content and
// one SignerInfo naming cert; SHA-256; signed attributes, among them
// exactly one content-type (id-data), one messageDigest equal to digest
// and one signing-certificate-v2 whose first ESSCertIDv2 is the SHA-256
// of cert; and a signature over those attributes that cert's key
// verifies.
func checkCMS(der []byte, digest []byte, cert *x509.Certificate) cmsVerdict {
	in := cryptobyte.String(der)
	var ci, wrapped, sd cryptobyte.String
	var oid asn1.ObjectIdentifier
	if !in.ReadASN1(&ci, cbasn1.SEQUENCE) || !in.Empty() ||
		!ci.ReadASN1ObjectIdentifier(&oid) || !oid.Equal(oidSignedData) ||
		!ci.ReadASN1(&wrapped, tagContext0Constr) || !ci.Empty() ||
		!wrapped.ReadASN1(&sd, cbasn1.SEQUENCE) || !wrapped.Empty() {
		return reasonBroken
	}
	var version int64
	var digestAlgs, encap, signerInfos cryptobyte.String
	if !sd.ReadASN1Integer(&version) || !sd.ReadASN1(&digestAlgs, cbasn1.SET) ||
		!sd.ReadASN1(&encap, cbasn1.SEQUENCE) {
		return reasonBroken
	}
	if !encap.ReadASN1ObjectIdentifier(&oid) {
		return reasonBroken
	}
	if !oid.Equal(oidData) || !encap.Empty() {
		// Content inside the CMS would be what the signature covers
		// instead of the file.
		return reasonAttached
	}
	if !sd.SkipOptionalASN1(tagContext0Constr) || !sd.SkipOptionalASN1(tagContext1Constr) ||
		!sd.ReadASN1(&signerInfos, cbasn1.SET) || !sd.Empty() {
		return reasonBroken
	}
	var si cryptobyte.String
	if !signerInfos.ReadASN1(&si, cbasn1.SEQUENCE) {
		return reasonBroken
	}
	if !signerInfos.Empty() {
		return reasonSigners
	}
	var sid, digestAlg, signedAttrs, sigAlg cryptobyte.String
	var sidTag cbasn1.Tag
	var signature []byte
	if !si.ReadASN1Integer(&version) || !si.ReadAnyASN1(&sid, &sidTag) ||
		!si.ReadASN1(&digestAlg, cbasn1.SEQUENCE) {
		return reasonBroken
	}
	if !namesCertificate(sid, sidTag, cert) {
		return reasonForeign
	}
	if !isAlgorithm(digestAlg, oidSHA256) {
		return reasonAlgorithm
	}
	if !si.PeekASN1Tag(tagContext0Constr) {
		return reasonNoAttributes
	}
	var attrsElement cryptobyte.String
	if !si.ReadASN1Element(&attrsElement, tagContext0Constr) ||
		!si.ReadASN1(&sigAlg, cbasn1.SEQUENCE) ||
		!si.ReadASN1Bytes(&signature, cbasn1.OCTET_STRING) ||
		!si.SkipOptionalASN1(tagContext1Constr) || !si.Empty() {
		return reasonBroken
	}
	signedAttrs = attrsElement
	if !signedAttrs.ReadASN1(&signedAttrs, tagContext0Constr) {
		return reasonBroken
	}
	if v := checkAttributes(signedAttrs, digest, cert); v != "" {
		return v
	}
	var alg x509.SignatureAlgorithm
	var sigOID asn1.ObjectIdentifier
	if !sigAlg.ReadASN1ObjectIdentifier(&sigOID) {
		return reasonBroken
	}
	switch {
	case sigOID.Equal(oidECDSAWithSHA) || sigOID.Equal(oidECPublicKey):
		alg = x509.ECDSAWithSHA256
	case sigOID.Equal(oidSHA256WithRSA) || sigOID.Equal(oidRSAEncryption):
		alg = x509.SHA256WithRSA
	default:
		return reasonAlgorithm
	}
	// The signature covers the DER of the attributes as a SET OF, not
	// with the [0] tag they carry in the SignerInfo (RFC 5652 5.4).
	signed := bytes.Clone([]byte(attrsElement))
	signed[0] = 0x31
	if err := cert.CheckSignature(alg, signed, signature); err != nil {
		return reasonChanged
	}
	return ""
}

// namesCertificate reports whether a SignerIdentifier names cert: by
// issuer and serial number, or by subject key identifier.
func namesCertificate(sid cryptobyte.String, tag cbasn1.Tag, cert *x509.Certificate) bool {
	switch tag {
	case cbasn1.SEQUENCE:
		var issuer cryptobyte.String
		serial := new(big.Int)
		if !sid.ReadASN1Element(&issuer, cbasn1.SEQUENCE) || !sid.ReadASN1Integer(serial) || !sid.Empty() {
			return false
		}
		return bytes.Equal(issuer, cert.RawIssuer) && serial.Cmp(cert.SerialNumber) == 0
	case tagContext0Prim:
		return len(cert.SubjectKeyId) > 0 && bytes.Equal(sid, cert.SubjectKeyId)
	}
	return false
}

// isAlgorithm reports whether an AlgorithmIdentifier is oid with absent
// or NULL parameters.
func isAlgorithm(alg cryptobyte.String, oid asn1.ObjectIdentifier) bool {
	var got asn1.ObjectIdentifier
	if !alg.ReadASN1ObjectIdentifier(&got) || !got.Equal(oid) {
		return false
	}
	if alg.Empty() {
		return true
	}
	var null cryptobyte.String
	return alg.ReadASN1(&null, cbasn1.NULL) && null.Empty() && alg.Empty()
}

// checkAttributes checks the signed attributes (the content of the SET
// OF Attribute).
func checkAttributes(attrs cryptobyte.String, digest []byte, cert *x509.Certificate) cmsVerdict {
	var contentType, messageDigest, signingCert []cryptobyte.String
	for !attrs.Empty() {
		var attr, values cryptobyte.String
		var oid asn1.ObjectIdentifier
		if !attrs.ReadASN1(&attr, cbasn1.SEQUENCE) || !attr.ReadASN1ObjectIdentifier(&oid) ||
			!attr.ReadASN1(&values, cbasn1.SET) || !attr.Empty() {
			return reasonBroken
		}
		switch {
		case oid.Equal(oidContentType):
			contentType = append(contentType, values)
		case oid.Equal(oidMessageDigest):
			messageDigest = append(messageDigest, values)
		case oid.Equal(oidSigningCertificateV2):
			signingCert = append(signingCert, values)
		}
	}
	if len(contentType) != 1 || len(messageDigest) != 1 || len(signingCert) != 1 {
		return reasonNoAttributes
	}
	var oid asn1.ObjectIdentifier
	if v := contentType[0]; !v.ReadASN1ObjectIdentifier(&oid) || !v.Empty() || !oid.Equal(oidData) {
		return reasonNoAttributes
	}
	var md []byte
	if v := messageDigest[0]; !v.ReadASN1Bytes(&md, cbasn1.OCTET_STRING) || !v.Empty() {
		return reasonBroken
	}
	if len(md) != sha256.Size || subtle.ConstantTimeCompare(md, digest) != 1 {
		return reasonChanged
	}
	if !namesCertHash(signingCert[0], cert) {
		return reasonCertAttribute
	}
	return ""
}

// namesCertHash reports whether the value of a signing-certificate-v2
// attribute (SigningCertificateV2, RFC 5035) names cert in its first
// ESSCertIDv2, the one that identifies the signer's certificate.
func namesCertHash(v cryptobyte.String, cert *x509.Certificate) bool {
	var sc, certs, id cryptobyte.String
	if !v.ReadASN1(&sc, cbasn1.SEQUENCE) || !v.Empty() ||
		!sc.ReadASN1(&certs, cbasn1.SEQUENCE) || !certs.ReadASN1(&id, cbasn1.SEQUENCE) {
		return false
	}
	if id.PeekASN1Tag(cbasn1.SEQUENCE) {
		var alg cryptobyte.String
		if !id.ReadASN1(&alg, cbasn1.SEQUENCE) || !isAlgorithm(alg, oidSHA256) {
			return false
		}
	}
	var hash []byte
	if !id.ReadASN1Bytes(&hash, cbasn1.OCTET_STRING) {
		return false
	}
	want := sha256.Sum256(cert.Raw)
	return subtle.ConstantTimeCompare(hash, want[:]) == 1
}
