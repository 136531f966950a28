package calc

import "testing"

func TestPasses(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("1 + 2 is not 3")
	}
}

func TestFirstFails(t *testing.T) {
	got := Add(2, 2)
	if got != 5 {
		t.Errorf("Add(2, 2) = %d, want 5", got) // @first-fail
	}
	got = Add(got, 1) // @after-first
}

func TestSecondFails(t *testing.T) {
	got := Add(3, 3)
	if got != 7 {
		t.Fatalf("Add(3, 3) = %d, want 7", got) // @second-fail
	}
}
