package engine

import (
	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/policy"
	"github.com/sightline-lsp/sightline/result"
)

// gate applies the deny rules to the file a resolution reaches, in the
// resolution the read or write then uses (confine.Gate): a folder swapped
// for a link to a denied one after the policy was checked leads nowhere.
func (e *Env) gate(name, rel string, _ confine.Intent) error {
	v := e.Policy().Check(rel)
	if v.Kind != policy.Denied {
		return nil
	}
	if name == rel || v.Closed {
		return deniedErr(rel, v)
	}
	return result.Errorf(result.Denied, "%s leads to %s, which is denied by the path policy (%s); sightline neither reads nor writes it. Do not retry: ask the user if you need it.", name, rel, v.Describe())
}
