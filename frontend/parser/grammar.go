package parser

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. These structs mirror the concrete syntax; convert.go
// turns them into the clean tree of package ast (binary chains become trees by
// Go's precedence table, positions become byte offsets).

type gFile struct {
	Decls []*gDecl `parser:"\";\"* ( @@ \";\"* )*"`
}

type gDecl struct {
	Import *gImport `parser:"@@"`
	Kernel *gKernel `parser:"| @@"`
	Func   *gFunc   `parser:"| @@"`
	Const  *gConst  `parser:"| @@"`
	Tune   *gTune   `parser:"| @@"`
}

// gTune is `tune KERNEL { item; ... }`. Its words (tune, key, grid,
// config, space, where, default) are contextual: names everywhere else.
// An item is its word then an expression or a parenthesised list: the
// converter tells config NAME(...) (a call), default NAME (a name) and
// where EXPR apart.
type gTune struct {
	Pos    lexer.Position
	Name   *gIdent      `parser:"\"tune\" @@ \"{\" \";\"*"`
	Items  []*gTuneItem `parser:"( @@ \";\"* )*"`
	Rbrace *gRbrace     `parser:"@@"`
}

type gTuneItem struct {
	Pos  lexer.Position
	Kind string     `parser:"@( \"key\" | \"grid\" | \"config\" | \"space\" | \"where\" | \"default\" )"`
	Cond *gExpr     `parser:"( @@"`
	Call *gTuneList `parser:"| @@ )"`
}

type gTuneList struct {
	Pos    lexer.Position
	Args   []*gArg  `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )?"`
	Rparen *gRparen `parser:"@@"`
}

type gImport struct {
	Pos  lexer.Position
	Path *gString `parser:"\"import\" @@"`
}

type gString struct {
	Pos   lexer.Position
	Value string `parser:"@String"`
}

type gKernel struct {
	Pos    lexer.Position
	Name   *gIdent   `parser:"\"kernel\" @@"`
	Params []*gParam `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )? \")\""`
	Body   *gBlock   `parser:"@@"`
}

type gFunc struct {
	Pos     lexer.Position
	Name    *gIdent   `parser:"\"func\" @@"`
	Params  []*gParam `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )? \")\""`
	Results []*gType  `parser:"( \"(\" @@ ( \",\" @@ )* \")\" | @@ )?"`
	Body    *gBlock   `parser:"@@"`
}

type gConst struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"\"const\" @@ \"=\""`
	Value *gExpr  `parser:"@@"`
}

type gParam struct {
	Name  *gIdent `parser:"@@"`
	Const bool    `parser:"@\"const\"?"`
	Type  *gType  `parser:"@@"`
}

type gType struct {
	Pos     lexer.Position
	Pointer *gType     `parser:"\"*\" @@"`
	Desc    *gDescType `parser:"| @@"`
	Tile    *gTileType `parser:"| @@"`
	Mem     *gMemType  `parser:"| @@"`
	Slot    *gSlotType `parser:"| @@"`
	Bars    *gBarsType `parser:"| @@"`
	Name    *gIdent    `parser:"| @@"`
}

// gMemType is `[remote] memdesc[D0, ...]T` or `[remote] memdesc T`. The
// words of the type spellings (remote, memdesc, writer, reader, slot,
// barrier) are contextual: they are names everywhere but in a type (remote
// and barrier are also builtins).
type gMemType struct {
	Remote *gWordRemote `parser:"@@?"`
	Kw     *gWordMem    `parser:"@@"`
	Dims   *gMemDims    `parser:"@@?"`
	Elem   *gIdent      `parser:"@@"`
}

type gMemDims struct {
	Pos  lexer.Position
	Dims []*gExpr `parser:"\"[\" @@ ( \",\" @@ )* \",\"? \"]\""`
}

type gWordRemote struct {
	Pos lexer.Position
	Tok string `parser:"@\"remote\""`
}

type gWordMem struct {
	Pos lexer.Position
	Tok string `parser:"@\"memdesc\""`
}

type gWordSlot struct {
	Pos lexer.Position
	Tok string `parser:"@\"slot\""`
}

// gSlotType is `writer slot` or `reader slot`.
type gSlotType struct {
	Pos  lexer.Position
	Side string     `parser:"@( \"writer\" | \"reader\" )"`
	Slot *gWordSlot `parser:"@@"`
}

// gBarsType is `barrier[N]`; a bare `barrier` is a name.
type gBarsType struct {
	Pos    lexer.Position
	N      *gExpr   `parser:"\"barrier\" \"[\" @@"`
	Rbrack *gRbrack `parser:"@@"`
}

type gDescType struct {
	Pos    lexer.Position
	Elem   *gIdent  `parser:"\"desc\" \"[\" @@"`
	Block  []*gExpr `parser:"( \",\" @@ )* \",\"? \"]\""`
	EndPos lexer.Position
}

type gTileType struct {
	Pos  lexer.Position
	Dims []*gExpr `parser:"\"[\" @@ ( \",\" @@ )* \",\"? \"]\""`
	Elem *gIdent  `parser:"@@"`
}

type gIdent struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

type gBlock struct {
	Pos    lexer.Position
	Stmts  []*gStmt `parser:"\"{\" \";\"* ( @@ \";\"* )*"`
	Rbrace *gRbrace `parser:"@@"`
}

type gRbrace struct {
	Pos lexer.Position
	Tok string `parser:"@\"}\""`
}

// gStmt tries the simple statement first: it is the most common, and no
// keyword or "{" can start an expression.
type gStmt struct {
	Simple *gSimple   `parser:"@@"`
	Return *gReturn   `parser:"| @@"`
	Branch *gBranch   `parser:"| @@"`
	If     *gIf       `parser:"| @@"`
	For    *gFor      `parser:"| @@"`
	Warp   *gWarpSpec `parser:"| @@"`
	Const  *gConst    `parser:"| @@"`
	Block  *gBlock    `parser:"| @@"`
}

type gReturn struct {
	Pos     lexer.Position
	Kw      string   `parser:"@\"return\""`
	Results []*gExpr `parser:"( @@ ( \",\" @@ )* )?"`
}

// gBranch is break or continue.
type gBranch struct {
	Pos lexer.Position
	Tok string `parser:"@( \"break\" | \"continue\" )"`
}

type gIf struct {
	Pos    lexer.Position
	Cond   *gExpr  `parser:"\"if\" @@"`
	Then   *gBlock `parser:"@@"`
	ElseIf *gIf    `parser:"( \"else\" ( @@"`
	Else   *gBlock `parser:"| @@ ) )?"`
}

type gFor struct {
	Pos   lexer.Position
	Range *gRangeClause `parser:"\"for\" ( @@"`
	Three *gThreeClause `parser:"| @@"`
	Cond  *gExpr        `parser:"| @@ )"`
	Body  *gBlock       `parser:"@@"`
}

type gRangeClause struct {
	Var  *gIdent     `parser:"@@ \":=\" \"range\""`
	Call *gRangeCall `parser:"( @@"`
	N    *gExpr      `parser:"| @@ )"`
}

// gRangeCall is range(start, end, step, num_stages: n, ...): Triton's
// tl.range, arguments after the keyword.
type gRangeCall struct {
	Pos  lexer.Position
	Call *gCall `parser:"@@"`
}

type gThreeClause struct {
	Init *gSimple `parser:"@@ \";\""`
	Cond *gExpr   `parser:"@@ \";\""`
	Post *gSimple `parser:"@@"`
}

type gWarpSpec struct {
	Pos    lexer.Position
	Roles  []*gRole `parser:"\"warp_specialize\" \"{\" \";\"* ( @@ \";\"* )*"`
	Rbrace *gRbrace `parser:"@@"`
}

type gRole struct {
	Pos  lexer.Position
	Name *gIdent `parser:"\"role\" @@"`
	Args []*gArg `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )? \")\""`
	Body *gBlock `parser:"@@"`
}

type gSimple struct {
	LHS []*gExpr   `parser:"@@ ( \",\" @@ )*"`
	Op  *gAssignOp `parser:"( @@"`
	RHS []*gExpr   `parser:"@@ ( \",\" @@ )* )?"`
}

type gAssignOp struct {
	Pos lexer.Position
	Op  string `parser:"@( \":=\" | \"=\" | \"+=\" | \"-=\" | \"*=\" | \"/=\" | \"%=\" | \"&=\" | \"|=\" | \"^=\" | \"<<=\" | \">>=\" )"`
}

type gColon struct {
	Pos lexer.Position
	Tok string `parser:"@\":\""`
}

// gExpr is a flat chain `parser:"x op y op z ..."`; convert.go applies precedence.
type gExpr struct {
	First *gUnary      `parser:"@@"`
	Rest  []*gBinaryOp `parser:"@@*"`
}

type gBinaryOp struct {
	Pos lexer.Position
	Op  string  `parser:"@( \"||\" | \"&&\" | \"==\" | \"!=\" | \"<=\" | \">=\" | \"<\" | \">\" | \"+\" | \"-\" | \"|\" | \"^\" | \"*\" | \"/\" | \"%\" | \"<<\" | \">>\" | \"&^\" | \"&\" )"`
	Y   *gUnary `parser:"@@"`
}

type gUnary struct {
	Pos     lexer.Position
	Op      string    `parser:"(   @( \"-\" | \"+\" | \"!\" | \"^\" | \"*\" )"`
	X       *gUnary   `parser:"@@"`
	Postfix *gPostfix `parser:"| @@ )"`
}

type gPostfix struct {
	X   *gPrimary  `parser:"@@"`
	Ops []*gSuffix `parser:"@@*"`
}

type gSuffix struct {
	Pos    lexer.Position
	Call   *gCall  `parser:"@@"`
	Index  *gIndex `parser:"| @@"`
	Select *gIdent `parser:"| \".\" @@"`
}

type gRparen struct {
	Pos lexer.Position
	Tok string `parser:"@\")\""`
}

type gRbrack struct {
	Pos lexer.Position
	Tok string `parser:"@\"]\""`
}

type gCall struct {
	Args   []*gArg  `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )?"`
	Rparen *gRparen `parser:"@@"`
}

type gIndex struct {
	Elems  []*gIndexElem `parser:"\"[\" @@ ( \",\" @@ )* \",\"?"`
	Rbrack *gRbrack      `parser:"@@"`
}

type gIndexElem struct {
	Pos   lexer.Position
	Lo    *gExpr  `parser:"@@?"`
	Colon *gColon `parser:"( @@"`
	Hi    *gExpr  `parser:"@@? )?"`
}

type gArg struct {
	Name  *gIdent `parser:"( @@ \":\" )?"`
	Value *gExpr  `parser:"@@"`
}

type gPrimary struct {
	Pos    lexer.Position
	Ident  *gIdent `parser:"@@"`
	Int    *string `parser:"| @Int"`
	Float  *string `parser:"| @Float"`
	String *string `parser:"| @String"`
	Paren  *gParen `parser:"| @@"`
	List   *gList  `parser:"| @@"`
}

type gParen struct {
	X      *gExpr   `parser:"\"(\" @@"`
	Rparen *gRparen `parser:"@@"`
}

type gList struct {
	Elems  []*gExpr `parser:"\"[\" ( @@ ( \",\" @@ )* \",\"? )?"`
	Rbrack *gRbrack `parser:"@@"`
	Elem   *gIdent  `parser:"@@?"`
}
