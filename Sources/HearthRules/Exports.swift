// The Firebase RTDB security rules language (see docs/rules.md).
