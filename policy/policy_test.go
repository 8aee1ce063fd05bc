package policy

import "testing"

func TestCheck(t *testing.T) {
	p, err := Compile(Rules{Allow: []string{"**"}, Deny: []string{"secrets/**", "*.sqlite"}, Sensitive: DefaultSensitive()},
		Rules{Allow: []string{"nothing"}, Deny: []string{"private"}, Sensitive: []string{"config/prod.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want Kind
	}{
		{"main.go", Allowed},
		{".env", Sensitive},
		{"app/.env.local", Sensitive},
		{".ENV", Sensitive},
		{"deploy/server.pem", Sensitive},
		{"home/.ssh/id_ed25519", Sensitive},
		{"id_map.go", Allowed},
		{".aws/credentials", Sensitive},
		{"x/.kube/config", Sensitive},
		{"tools/gcloud/creds/a.json", Sensitive},
		{"secrets/a.txt", Denied},
		{"db/data.sqlite", Denied},
		{"private/readme.md", Denied},
		{"a/private/readme.md", Denied},
		{"config/prod.yaml", Sensitive},
		{"config/dev.yaml", Allowed},
	}
	for _, c := range cases {
		if got := p.Check(c.path); got.Kind != c.want {
			t.Errorf("%s: got %v (%s), want %v", c.path, got.Kind, got.Describe(), c.want)
		}
	}
	// Allow narrows: the repository's allow counts for nothing, the user's does.
	p2, _ := Compile(Rules{Allow: []string{"src/**"}}, Rules{Allow: []string{"**"}})
	if v := p2.Check("README.md"); v.Kind != Denied || !v.NoAllow {
		t.Errorf("README.md outside allow: %+v", v)
	}
	if v := p2.Check("src/a.go"); v.Kind != Allowed {
		t.Errorf("src/a.go: %+v", v)
	}
	if _, err := Compile(Rules{Deny: []string{"[a"}}, Rules{}); err == nil {
		t.Error("bad glob compiled")
	}
}
