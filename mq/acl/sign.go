package acl

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"sort"
)

// The extFields keys of a signed request (RocketMQ's SessionCredentials constants).
const (
	KeyAccessKey     = "AccessKey"
	KeySignature     = "Signature"
	KeySecurityToken = "SecurityToken"
	// keyUniqueMsgQuery is MixAll.UNIQUE_MSG_QUERY_FLAG, which Java leaves out of the signed content.
	keyUniqueMsgQuery = "_UNIQUE_KEY_QUERY"
)

// SignContent is the byte string a request's signature covers: the values of fields (every
// extField but Signature and _UNIQUE_KEY_QUERY, AccessKey and SecurityToken included) in the
// byte order of their keys, concatenated with no separator, then the body.
// Java: AclUtils#combineRequestContent (over the SortedMap PlainAccessValidator#parse builds).
func SignContent(fields map[string]string, body []byte) []byte {
	keys := make([]string, 0, len(fields))
	n := len(body)
	for k, v := range fields {
		if k == KeySignature || k == keyUniqueMsgQuery {
			continue
		}
		keys = append(keys, k)
		n += len(v)
	}
	sort.Strings(keys)
	out := make([]byte, 0, n)
	for _, k := range keys {
		out = append(out, fields[k]...)
	}
	return append(out, body...)
}

// Signature is base64(HmacSHA1(secretKey, content)), the standard alphabet with padding
// (28 characters). Java: AclUtils#calSignature.
func Signature(content []byte, secretKey string) string {
	mac := hmac.New(sha1.New, []byte(secretKey))
	mac.Write(content)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Sign adds AccessKey, SecurityToken (when not empty) and Signature to fields, the signature
// over SignContent(fields, body) after the first two are in: what a client sends.
// Java: AclClientRPCHook#doBeforeRequest.
func Sign(fields map[string]string, body []byte, c Credentials) {
	fields[KeyAccessKey] = c.AccessKey
	if c.SecurityToken != "" {
		fields[KeySecurityToken] = c.SecurityToken
	}
	delete(fields, KeySignature)
	fields[KeySignature] = Signature(SignContent(fields, body), c.SecretKey)
}

// Credentials are a client's keys. Java: SessionCredentials.
type Credentials struct {
	AccessKey     string
	SecretKey     string
	SecurityToken string
}

// Empty reports whether there is nothing to sign with (no AccessKey or no SecretKey).
func (c Credentials) Empty() bool { return c.AccessKey == "" || c.SecretKey == "" }
