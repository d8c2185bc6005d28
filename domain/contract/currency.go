package contract

import "strings"

// currencyCodes lists the active ISO 4217 alphabetic codes (list one, as
// amended to 2025): national currencies, the supranational ones (EUR, XAF,
// XOF, XCD, XCG, XPF, XDR, XSU, XUA), fund codes (BOV, CHE, CHW, CLF, COU,
// MXV, USN, UYI, UYW), the bond-market units (XBA to XBD) and precious
// metals (XAG, XAU, XPD, XPT). Left out: XTS (reserved for testing) and
// XXX (no currency), which name no currency, and withdrawn codes such as
// ANG (replaced by XCG), HRK, CUC, SLL, ZWL, VEF, MRO and STD. Update the
// list when ISO publishes an amendment; it is a constant so the package
// holds no state.
const currencyCodes = "" +
	"AED AFN ALL AMD AOA ARS AUD AWG AZN " +
	"BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD " +
	"CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK " +
	"DJF DKK DOP DZD " +
	"EGP ERN ETB EUR " +
	"FJD FKP " +
	"GBP GEL GHS GIP GMD GNF GTQ GYD " +
	"HKD HNL HTG HUF " +
	"IDR ILS INR IQD IRR ISK " +
	"JMD JOD JPY " +
	"KES KGS KHR KMF KPW KRW KWD KYD KZT " +
	"LAK LBP LKR LRD LSL LYD " +
	"MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN " +
	"NAD NGN NIO NOK NPR NZD " +
	"OMR " +
	"PAB PEN PGK PHP PKR PLN PYG " +
	"QAR " +
	"RON RSD RUB RWF " +
	"SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL " +
	"THB TJS TMT TND TOP TRY TTD TWD TZS " +
	"UAH UGX USD USN UYI UYU UYW UZS " +
	"VED VES VND VUV " +
	"WST " +
	"XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA " +
	"YER " +
	"ZAR ZMW ZWG"

// IsCurrencyCode reports whether code is an active ISO 4217 code, written
// as three upper-case letters ("AUD"; "aud" is not: upper-case it first,
// as Contract.Normalize does).
func IsCurrencyCode(code string) bool {
	if len(code) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if code[i] < 'A' || code[i] > 'Z' {
			return false
		}
	}
	// Codes are three letters apart from single spaces, so an aligned
	// search cannot match across two codes.
	i := strings.Index(currencyCodes, code)
	return i >= 0 && i%4 == 0
}
