// RUN: dpl compile -c "torch.nn.functional.cross_entropy(torch.randn(5, 7), torch.randint(0, 7, (5,)))" --ir torch | filecheck %s --check-prefix=CE
// RUN: dpl compile -c "torch.roll(torch.randn(4, 6), 2, 1)" --ir torch | filecheck %s --check-prefix=ROLL
// RUN: dpl compile -c "torch.relu(torch.randn(4, 6)).sum(1)" --ir torch | filecheck %s --check-prefix=HANDLED
// Capture replaces an ATen op no handler takes by PyTorch's decomposition of it (before: the op;
// after: the handled ops it decomposes into); a program whose ops all have handlers keeps them.

// cross_entropy: log_softmax, the target's entries picked (gather: an embedding lookup of the
// flattened rows), their mean.
// CE:      %log_softmax = torch.log_softmax %x {dim = 1}
// CE:      torch.embedding
// CE:      %neg = torch.neg
// CE:      torch.div
// CE-NOT:  cross_entropy

// roll: an index_select of the rotated positions (a constant table).
// ROLL:     torch.index_select %x
// ROLL-NOT: roll

// HANDLED:      torch.relu %x
// HANDLED-NEXT: torch.sum
