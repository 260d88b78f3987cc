// litmus's own versions of the library files herd7 gives every model
// (stdlib.cat, read before any model) or that models include by name
// (cross.cat, cos.cat, cos-opt.cat). Written for litmus from what herd's
// documentation says these names mean; the kernel's lock.cat includes
// cross.cat and cos-opt.cat. `natives` are the primitives (models/cat/
// builtins.ts) a file makes visible where it is included: herd defines
// `map` and `cross` in cat itself; litmus computes them natively, and
// `cross` of coherence orders and lock reads is never enumerated (see
// `with` in models/cat/evaluate.ts).

export interface LibraryFile {
  text: string;
  natives: readonly string[];
}

const STDLIB = `stdlib
(* Names every model may use without including anything. *)

let emptyset = domain(0)
let partition = classes-loc

(* Accesses to the same location in program order; reads-from between and within threads. *)
let po-loc = po & loc
let rfe = rf & ext
let rfi = rf & int

(* What every coherence order contains: initial writes first, the final write of an observed location last. *)
let co0 = ((IW * (W \\ IW)) | ((W \\ FW) * FW)) & loc

let toid(s) = [s]
(* Program order through an event of set B (a fence). *)
let fencerel(B) = po ; [B] ; po
let ctrlcfence(CFENCE) = ctrl ; [CFENCE] ; po

let imply(A, B) = ~A | B
(* R1 without the pairs R2 ; R3 also joins. *)
let nodetour(R1, R2, R3) = R1 \\ (R2 ; R3)
(* The steps of R that are not two steps of R: e.g. the immediate successor in a total order. *)
let singlestep(R) = nodetour(R, R, R)

procedure subseteq(A, B) =
  empty A \\ B
end
procedure inclusion(r1, r2) =
  empty r1 \\ r2
end
procedure total(r, E) =
  let both-ways = r | r^-1
  call inclusion(E * E, both-ways)
end

let LKW = try LKW with emptyset
`;

const CROSS = `Cross
(* Coherence orders: per location, a linear order of its writes extending pco. *)
let co_locs(pco, wss) = map (fun ws -> linearisations(ws, pco)) wss
let generate_orders(s, pco) = cross(co_locs(pco, partition(s)))
let generate_cos(pco) = generate_orders(W, pco)
`;

const COS_OPT = `"Coherence orders" withoutco
(* The coherence orders a candidate may have: those that extend what its reads and program order already show. *)
let invrf = rf^-1
let obsco =
  let ww = po-loc & (W * W)
  and rw = rf ; (po-loc & (R * W))
  and wr = ((po-loc & (W * R)) ; invrf) \\ id
  and rr = (rf ; (po-loc & (R * R)) ; invrf) \\ id in
  ww | rw | wr | rr
(* An RMW that is one event, both a read and a write, is coherence-after the write it reads. *)
let rmwco = rf & (W * (R & W))
let cobase = obsco | rmwco | co0
acyclic cobase as ConsCo

include "cross.cat"
with co from generate_cos(cobase)

let coi = co & int
let coe = co \\ coi
let fr = (invrf ; co) \\ id
let fri = fr & int
let fre = fr \\ fri
`;

const COS = `"Coherence orders"
include "cos-opt.cat"
let ca = fr | co
`;

/** The library files by the name a model includes them by. */
export const LIBRARY: Readonly<Record<string, LibraryFile>> = {
  'stdlib.cat': { text: STDLIB, natives: ['map'] },
  'cross.cat': { text: CROSS, natives: ['cross'] },
  'cos-opt.cat': { text: COS_OPT, natives: [] },
  'cos.cat': { text: COS, natives: [] },
};
