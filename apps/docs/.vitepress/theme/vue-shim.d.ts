// The single-file components of the theme, as the type checker sees them (vite compiles them).
declare module '*.vue' {
  import type { DefineComponent } from 'vue';

  const component: DefineComponent;
  export default component;
}
